//! The web service sources against loopback fakes of their APIs: each fake answers the
//! recorded fixtures (`tests/fixtures/<source>/`, in the shape the real API documents) only
//! to the exact request the API expects (method, path, auth header, paging parameters) and
//! 400 to anything else, so a test passes only when the request is right. Every source is
//! read over at least two pages; a preview stops after its first rows; a 401 is a clear error
//! without the key. The real services cannot be reached from where quire is built.

use quire_import::web::Service;
use quire_import::{read, ImportError, Limits, Location, Source, SourceKind};
use quire_testkit::fake_api::{FakeApi, Received};
use serde_json::{json, Value};

const KEY: &str = "secret_Zq8x3v9TOKENab12";

fn fixture(source: &str, name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/{source}/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bad(why: &str) -> (u16, String) {
    (400, json!({"message": format!("fake: {why}")}).to_string())
}

fn body(r: &Received) -> Value {
    serde_json::from_slice(&r.body).unwrap_or(Value::Null)
}

fn source(kind: SourceKind, uri: &str, fields: Service, query: Option<&str>) -> Source {
    Source {
        kind,
        location: Location::Service(Service::new(kind, Some(uri), fields).expect("valid")),
        query: query.map(str::to_string),
        sheet: None,
    }
}

fn all(source: &Source) -> Result<Vec<Value>, ImportError> {
    read(source, &Limits::default(), None).map(|rows| rows.into_iter().map(Value::Object).collect())
}

fn first(source: &Source, n: usize) -> Vec<Value> {
    read(source, &Limits::default(), Some(n))
        .unwrap()
        .into_iter()
        .map(Value::Object)
        .collect()
}

/// The error of a fake that answers 401 with `answer` to everything.
fn refused(kind: SourceKind, fields: Service, answer: String) -> String {
    let fake = FakeApi::start(move |_| (401, answer.clone()));
    let err = all(&source(kind, &fake.url(), fields, None)).unwrap_err();
    let ImportError::BadRequest(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("401"), "{message}");
    assert!(!message.contains(KEY), "{message}");
    message
}

// ---- Notion --------------------------------------------------------------------------------

const NOTION_DB: &str = "668d797c-76fa-4934-9b05-ad288df2d136";

fn notion_fields() -> Service {
    Service {
        api_key: Some(KEY.to_string()),
        database_id: Some(NOTION_DB.to_string()),
        ..Default::default()
    }
}

const NOTION_FIRST: &str = "59833787-2cf9-4fdf-8782-e53db20768a5";
const NOTION_SECOND: &str = "dd456007-6c66-4bba-957e-ea501dcda3a6";

fn notion_fake() -> FakeApi {
    notion_fake_hiding(None)
}

/// The Notion fake; the blocks of `unshared` (a page or block id) answer 404, as Notion does
/// for a page not shared with the integration.
fn notion_fake_hiding(unshared: Option<&'static str>) -> FakeApi {
    FakeApi::start(move |r| {
        if r.header("authorization") != Some(&format!("Bearer {KEY}")) {
            return (401, fixture("notion", "unauthorized"));
        }
        if r.header("notion-version") != Some("2022-06-28") {
            return bad("headers");
        }
        if r.method == "GET" && r.target.starts_with("/v1/blocks/") {
            return notion_blocks(&r.target, unshared);
        }
        if r.method != "POST" || r.target != format!("/v1/databases/{NOTION_DB}/query") {
            return bad("wrong route");
        }
        if r.header("content-type") != Some("application/json") {
            return bad("headers");
        }
        let b = body(r);
        let size = b["page_size"].as_u64().unwrap_or(0);
        if !(1..=100).contains(&size) {
            return bad("page_size");
        }
        match b.get("start_cursor").and_then(Value::as_str) {
            None => (200, fixture("notion", "page1")),
            Some("e6c6f5ff-c70e-4970-9f0b-2a1bdbb5e7a6") => (200, fixture("notion", "page2")),
            Some(_) => bad("start_cursor"),
        }
    })
}

/// `GET /v1/blocks/{id}/children?page_size=100[&start_cursor=…]`: the recorded children
/// (`fixtures/notion/blocks/<id>[.<cursor>].json`); a block without any is Notion's 404.
fn notion_blocks(target: &str, unshared: Option<&str>) -> (u16, String) {
    let Some((id, query)) = target
        .strip_prefix("/v1/blocks/")
        .and_then(|rest| rest.split_once("/children?"))
    else {
        return bad("blocks route");
    };
    let name = match query.strip_prefix("page_size=100") {
        Some("") => id.to_string(),
        Some(rest) => match rest.strip_prefix("&start_cursor=") {
            Some(cursor) => format!("{id}.{cursor}"),
            None => return bad("blocks query"),
        },
        None => return bad("page_size"),
    };
    let path = format!(
        "{}/tests/fixtures/notion/blocks/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(text) if unshared != Some(id) => (200, text),
        _ => (
            404,
            json!({"object": "error", "status": 404, "code": "object_not_found",
                "message": format!("Could not find block with ID: {id}. Make sure the relevant \
                    pages and databases are shared with your integration.")})
            .to_string(),
        ),
    }
}

/// The block ids whose children were asked for, in order.
fn block_requests(seen: &[Received]) -> Vec<String> {
    seen.iter()
        .filter_map(|r| r.target.strip_prefix("/v1/blocks/"))
        .map(|rest| rest.split('/').next().unwrap_or("").to_string())
        .collect()
}

const FIRST_BODY: &str = "# Overview

Plain, **bold**, *italic* , ~~gone~~, `x = 1`, a [link](https://example.com/l) and @Ann Smith.

## Steps

1. First
1. Second

- [ ] Write
- [x] Ship
- [ ] Test

### Code

```rust
fn main() {
    println!(\"hi\");
}
```

---

$$E = mc^2$$

![A cat](https://example.com/cat.png)

[report.pdf](https://files.example.com/report.pdf?sig=1)

[https://example.com/paper.pdf](https://example.com/paper.pdf)

[Bookmarked](https://example.com/bm)

[https://example.com/embed](https://example.com/embed)

[https://example.com/v.mp4](https://example.com/v.mp4)";

const SECOND_BODY: &str = "- Fruit
  - Apple
  - Pear
    1. Ripe
- Veg

> Said once
>
> And again

> 💡 Mind this

More

  Hidden text

| Name | Qty |
| --- | --- |
| Apple | 3 |
| a\\|b |  |

Page: Sub page

Database: Tasks

Left

Right";

#[test]
fn notion_page_bodies_are_read_as_markdown_over_block_pages_and_nested_children() {
    let fake = notion_fake();
    let rows = all(&source(
        SourceKind::Notion,
        &fake.url(),
        notion_fields(),
        None,
    ))
    .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["body"], json!(FIRST_BODY), "{}", rows[0]["body"]);
    assert_eq!(rows[1]["body"], json!(SECOND_BODY), "{}", rows[1]["body"]);
    let seen = fake.received();
    assert!(seen.iter().all(|r| r.status == 200));
    // The first body over two block pages; nested children by their own ids, depth first;
    // the child page and the duplicate synced block are not followed.
    assert_eq!(
        block_requests(&seen),
        [
            NOTION_FIRST,
            NOTION_FIRST,
            NOTION_SECOND,
            "b0000000-0000-4000-8000-00000000f001",
            "b0000000-0000-4000-8000-00000000f002",
            "b0000000-0000-4000-8000-00000000f003",
            "b0000000-0000-4000-8000-00000000f004",
            "b0000000-0000-4000-8000-00000000f005",
            "b0000000-0000-4000-8000-00000000f006",
            "b0000000-0000-4000-8000-00000000f007",
            "b0000000-0000-4000-8000-00000000f008",
        ]
    );
    assert_eq!(
        seen[3].target,
        format!("/v1/blocks/{NOTION_FIRST}/children?page_size=100&start_cursor=a1b2c3d4-0000-4000-8000-00000000c0de")
    );
    // The default mapping makes the body the page's content, not frontmatter.
    let plan = quire_import::Plan::new(
        SourceKind::Notion,
        "notion:test/db",
        &quire_import::Mapping::default(),
        Some("notion"),
        Some("id"),
    )
    .unwrap();
    let Value::Object(row) = rows[1].clone() else {
        panic!()
    };
    let page = plan.render(&row, 2).unwrap();
    assert_eq!(page.body, SECOND_BODY);
    assert!(!page.frontmatter_map().contains_key("body"));
}

#[test]
fn notion_preview_reads_the_bodies_of_its_rows_only() {
    let fake = notion_fake();
    let rows = first(
        &source(SourceKind::Notion, &fake.url(), notion_fields(), None),
        1,
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["body"], json!(FIRST_BODY));
    let seen = fake.received();
    assert_eq!(block_requests(&seen), [NOTION_FIRST, NOTION_FIRST]);
    assert_eq!(seen.len(), 3, "one query, the two block pages of its row");
    // More rows than an import takes: refused before any body is read.
    let fake = notion_fake();
    let small = Limits {
        max_bytes: 1 << 20,
        max_rows: 1,
    };
    let err = read(
        &source(SourceKind::Notion, &fake.url(), notion_fields(), None),
        &small,
        None,
    )
    .unwrap_err();
    assert!(matches!(err, ImportError::TooLarge(_)), "{err:?}");
    assert!(block_requests(&fake.received()).is_empty());
}

#[test]
fn notion_nested_blocks_are_read_eight_levels_deep_and_no_deeper() {
    // Every block has a child: the read stops 8 levels below the page's own blocks.
    let fake = FakeApi::start(|r| {
        if r.method == "POST" {
            return (200, fixture("notion", "page2"));
        }
        let Some(id) = r
            .target
            .strip_prefix("/v1/blocks/")
            .and_then(|t| t.strip_suffix("/children?page_size=100"))
        else {
            return bad("route");
        };
        let level = id
            .strip_prefix("level-")
            .map_or(0, |n| n.parse::<u32>().unwrap() + 1);
        let item = json!({"object": "block", "id": format!("level-{level}"), "has_children": true,
            "type": "bulleted_list_item", "bulleted_list_item": {"rich_text": [
                {"type": "text", "plain_text": format!("level {level}"), "href": null}]}});
        (
            200,
            json!({"object": "list", "results": [item], "has_more": false,
            "next_cursor": null})
            .to_string(),
        )
    });
    let rows = all(&source(
        SourceKind::Notion,
        &fake.url(),
        notion_fields(),
        None,
    ))
    .unwrap();
    let expected: Vec<String> = (0..=8)
        .map(|n| format!("{}- level {n}", "  ".repeat(n)))
        .collect();
    assert_eq!(rows[0]["body"], json!(expected.join("\n")));
    assert_eq!(block_requests(&fake.received()).len(), 9);
}

#[test]
fn notion_body_the_integration_cannot_read_is_a_clear_error_naming_the_page() {
    let fake = notion_fake_hiding(Some(NOTION_SECOND));
    let err = all(&source(
        SourceKind::Notion,
        &fake.url(),
        notion_fields(),
        None,
    ))
    .unwrap_err();
    let ImportError::BadRequest(message) = err else {
        panic!("{err:?}")
    };
    assert!(
        message.contains("body of Notion page \"Second\"")
            && message.contains(NOTION_SECOND)
            && message.contains("HTTP 404")
            && message.contains("shared with the integration"),
        "{message}"
    );
    assert!(!message.contains(KEY), "{message}");
    // A nested block it cannot read fails the same way, naming the page.
    let fake = notion_fake_hiding(Some("b0000000-0000-4000-8000-00000000f002"));
    let err = all(&source(
        SourceKind::Notion,
        &fake.url(),
        notion_fields(),
        None,
    ))
    .unwrap_err();
    assert!(err.to_string().contains(NOTION_SECOND), "{err}");
}

#[test]
fn notion_pages_read_over_two_pages_with_plain_property_values() {
    let fake = notion_fake();
    let mut rows = all(&source(
        SourceKind::Notion,
        &fake.url(),
        notion_fields(),
        None,
    ))
    .unwrap();
    // The bodies are checked on their own below.
    for row in &mut rows {
        assert!(row.as_object_mut().unwrap().remove("body").is_some());
    }
    assert_eq!(
        rows,
        vec![
            json!({
                "Name": "First note", "Notes": "Hello world", "Stars": 5, "Stage": "Draft",
                "Tags": ["rust", "notes"], "Due": "2024-04-01", "Done": true,
                "Link": "https://example.com/a", "Mail": "ann@example.com",
                "Owner": ["Ann Smith"], "Related": ["dd456007-6c66-4bba-957e-ea501dcda3a6"],
                "id": "59833787-2cf9-4fdf-8782-e53db20768a5",
                "url": "https://www.notion.so/First-note-598337872cf94fdf8782e53db20768a5",
                "created_time": "2024-03-01T09:30:00.000Z",
                "last_edited_time": "2024-03-02T10:00:00.000Z",
            }),
            json!({
                "Name": "Second", "Notes": "", "Stage": "Done", "Tags": [],
                "Due": {"start": "2024-04-01T09:00:00.000+02:00", "end": "2024-04-03"},
                "Done": false,
                "id": "dd456007-6c66-4bba-957e-ea501dcda3a6",
                "url": "https://www.notion.so/Second-dd4560076c664bba957eea501dcda3a6",
                "created_time": "2024-03-05T12:00:00.000Z",
                "last_edited_time": "2024-03-05T12:00:00.000Z",
            }),
        ]
    );
    let seen = fake.received();
    let queries: Vec<&Received> = seen.iter().filter(|r| r.method == "POST").collect();
    assert_eq!(queries.len(), 2);
    assert!(seen.iter().all(|r| r.status == 200));
    assert_eq!(body(queries[0]), json!({"page_size": 100}));
    // A filter given as `query` goes into the body; a preview asks for its rows only.
    let fake = notion_fake();
    let filtered = source(
        SourceKind::Notion,
        &fake.url(),
        notion_fields(),
        Some(r#"{"property": "Done", "checkbox": {"equals": true}}"#),
    );
    assert_eq!(first(&filtered, 1).len(), 1);
    let seen = fake.received();
    assert_eq!(
        seen.iter().filter(|r| r.method == "POST").count(),
        1,
        "a preview stops paging once it has its rows"
    );
    assert_eq!(
        body(&seen[0]),
        json!({"page_size": 1, "filter": {"property": "Done", "checkbox": {"equals": true}}})
    );
}

#[test]
fn notion_refusals_name_the_service_and_never_the_key() {
    let message = refused(
        SourceKind::Notion,
        notion_fields(),
        fixture("notion", "unauthorized"),
    );
    assert!(
        message.contains("Notion") && message.contains("API token is invalid"),
        "{message}"
    );
    // A wrong key against the checking fake: the same clear 401.
    let fake = notion_fake();
    let mut fields = notion_fields();
    fields.api_key = Some("secret_wrong_key_777".to_string());
    let err = all(&source(SourceKind::Notion, &fake.url(), fields, None)).unwrap_err();
    assert!(err.to_string().contains("HTTP 401"), "{err}");
    assert!(!err.to_string().contains("secret_wrong_key_777"), "{err}");
    // Nothing listening.
    let port = quire_testkit::receiver::Receiver::free_port();
    let err = all(&source(
        SourceKind::Notion,
        &format!("http://127.0.0.1:{port}"),
        notion_fields(),
        None,
    ))
    .unwrap_err();
    assert!(
        err.to_string().contains("cannot reach Notion") && !err.to_string().contains(KEY),
        "{err}"
    );
    // Not JSON.
    let fake = FakeApi::start(|_| (200, "<html>proxy</html>".to_string()));
    let err = all(&source(
        SourceKind::Notion,
        &fake.url(),
        notion_fields(),
        None,
    ))
    .unwrap_err();
    assert!(err.to_string().contains("not JSON"), "{err}");
}

#[test]
fn service_fields_are_checked_before_anything_is_sent() {
    let missing = Service::new(SourceKind::Notion, None, Service::default()).unwrap_err();
    assert!(
        missing.to_string().contains("connection.database_id"),
        "{missing}"
    );
    let no_key = Service::new(
        SourceKind::Airtable,
        None,
        Service {
            base_id: Some("app1".into()),
            table_id: Some("Notes".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        no_key.to_string().contains("connection.api_key"),
        "{no_key}"
    );
    let userinfo = Service::new(
        SourceKind::Notion,
        Some("https://user:pw@api.notion.com"),
        notion_fields(),
    )
    .unwrap_err();
    assert!(!userinfo.to_string().contains("pw@"), "{userinfo}");
    let scheme = Service::new(
        SourceKind::Notion,
        Some("ftp://api.notion.com"),
        notion_fields(),
    )
    .unwrap_err();
    assert!(scheme.to_string().contains("ftp"), "{scheme}");
    let real = Service::new(SourceKind::Notion, None, notion_fields()).unwrap();
    assert_eq!(real.base, "https://api.notion.com");
    assert_eq!(
        real.source_name(SourceKind::Notion),
        format!("notion:api.notion.com/{NOTION_DB}")
    );
    assert!(!format!("{real:?}").contains(KEY));
    let es = Service::new(SourceKind::Elasticsearch, None, Service::default()).unwrap_err();
    assert!(es.to_string().contains("connection.uri"), "{es}");
}

#[test]
fn notion_browse_lists_the_databases_shared_with_the_key() {
    let fake = FakeApi::start(|r| {
        if r.method != "POST" || r.target != "/v1/search" {
            return bad("route");
        }
        if r.header("authorization") != Some(&format!("Bearer {KEY}")) {
            return (401, fixture("notion", "unauthorized"));
        }
        if body(r)["filter"] != json!({"property": "object", "value": "database"}) {
            return bad("filter");
        }
        (200, fixture("notion", "search"))
    });
    let service = Service::new(SourceKind::Notion, Some(&fake.url()), notion_fields()).unwrap();
    let names = quire_import::web::tables(SourceKind::Notion, &service).unwrap();
    assert_eq!(
        names,
        vec![
            "2f26ee68-df30-4251-aad4-8ddc420cba3d",
            "668d797c-76fa-4934-9b05-ad288df2d136"
        ]
    );
}

// ---- Airtable ------------------------------------------------------------------------------

fn airtable_fields() -> Service {
    Service {
        api_key: Some(KEY.to_string()),
        base_id: Some("appAbC123".to_string()),
        table_id: Some("Notes table".to_string()),
        ..Default::default()
    }
}

fn airtable_fake() -> FakeApi {
    FakeApi::start(|r| {
        if r.header("authorization") != Some(&format!("Bearer {KEY}")) {
            return (401, fixture("airtable", "unauthorized"));
        }
        if r.method == "GET" && r.target == "/v0/meta/bases/appAbC123/tables" {
            return (200, fixture("airtable", "tables"));
        }
        let Some(query) = r.target.strip_prefix("/v0/appAbC123/Notes%20table?") else {
            return bad("route");
        };
        if r.method != "GET" {
            return bad("method");
        }
        let mut size = None;
        let mut offset = None;
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some(("pageSize", n)) => size = n.parse::<u32>().ok(),
                Some(("offset", o)) => offset = Some(o.to_string()),
                _ => return bad("parameter"),
            }
        }
        if !size.is_some_and(|n| (1..=100).contains(&n)) {
            return bad("pageSize");
        }
        match offset.as_deref() {
            None => (200, fixture("airtable", "page1")),
            Some("itrPoWyTmd0N4KyV5%2Frec3lbPRG4aVqkeOQ") => (200, fixture("airtable", "page2")),
            Some(_) => bad("offset"),
        }
    })
}

#[test]
fn airtable_records_read_over_two_pages_by_offset() {
    let fake = airtable_fake();
    let rows = all(&source(
        SourceKind::Airtable,
        &fake.url(),
        airtable_fields(),
        None,
    ))
    .unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0],
        json!({"Name": "First note", "Notes": "Hello world", "Stars": 5, "Done": true,
            "Tags": ["rust", "notes"], "id": "rec560UJdUtocSouk",
            "createdTime": "2024-03-01T09:30:00.000Z"})
    );
    assert_eq!(rows[2]["Attachments"][0]["filename"], "x.png");
    assert_eq!(fake.received().len(), 2);
    let fake = airtable_fake();
    assert_eq!(
        first(
            &source(SourceKind::Airtable, &fake.url(), airtable_fields(), None),
            2
        )
        .len(),
        2
    );
    let seen = fake.received();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].target, "/v0/appAbC123/Notes%20table?pageSize=2");
    let service = Service::new(SourceKind::Airtable, Some(&fake.url()), airtable_fields()).unwrap();
    assert_eq!(
        quire_import::web::tables(SourceKind::Airtable, &service).unwrap(),
        vec!["Authors", "Notes"]
    );
    assert_eq!(
        service.source_name(SourceKind::Airtable),
        format!("airtable:{}/appAbC123/Notes table", service.host())
    );
}

#[test]
fn airtable_refusal_is_clear_without_the_key() {
    let message = refused(
        SourceKind::Airtable,
        airtable_fields(),
        fixture("airtable", "unauthorized"),
    );
    assert!(message.contains("Airtable") && message.contains("Authentication required"));
}

// ---- Elasticsearch -------------------------------------------------------------------------

const SCROLL: &str = "FGluY2x1ZGVfY29udGV4dF91dWlkDXF1ZXJ5QW5kRmV0Y2gBFkJHcTNJ";

fn es_fields() -> Service {
    Service {
        api_key: Some(KEY.to_string()),
        table: Some("notes".to_string()),
        ..Default::default()
    }
}

fn es_fake() -> FakeApi {
    let scrolls = std::sync::atomic::AtomicUsize::new(0);
    FakeApi::start(move |r| {
        if r.header("authorization") != Some(&format!("ApiKey {KEY}")) {
            return (401, fixture("elasticsearch", "unauthorized"));
        }
        let b = body(r);
        match (r.method.as_str(), r.target.as_str()) {
            ("GET", "/_cat/indices?format=json&h=index") => {
                (200, fixture("elasticsearch", "indices"))
            }
            ("POST", "/notes/_search?scroll=1m") => {
                if b["sort"] != json!(["_doc"]) || b["size"].as_u64().is_none_or(|n| n < 1) {
                    return bad("search body");
                }
                (200, fixture("elasticsearch", "page1"))
            }
            ("POST", "/_search/scroll") => {
                if b != json!({"scroll": "1m", "scroll_id": SCROLL}) {
                    return bad("scroll body");
                }
                let n = scrolls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                (
                    200,
                    fixture("elasticsearch", if n == 0 { "page2" } else { "page3" }),
                )
            }
            ("DELETE", "/_search/scroll") if b == json!({"scroll_id": SCROLL}) => {
                (200, fixture("elasticsearch", "cleared"))
            }
            _ => bad("route"),
        }
    })
}

#[test]
fn elasticsearch_hits_read_by_scrolling_and_the_scroll_is_cleared() {
    let fake = es_fake();
    let rows = all(&source(
        SourceKind::Elasticsearch,
        &fake.url(),
        es_fields(),
        None,
    ))
    .unwrap();
    assert_eq!(
        rows,
        vec![
            json!({"_id": "1", "title": "First note", "body": "Hello", "stars": 5, "tags": ["rust"]}),
            json!({"_id": "2", "title": "Second", "stars": 3}),
            json!({"_id": "3", "title": "Third", "author": {"name": "Ann"}}),
        ]
    );
    let seen = fake.received();
    let routes: Vec<_> = seen.iter().map(|r| (r.method.as_str(), r.status)).collect();
    assert_eq!(
        routes,
        vec![("POST", 200), ("POST", 200), ("POST", 200), ("DELETE", 200)]
    );
    // A query goes into the search body.
    let fake = es_fake();
    let rows = first(
        &source(
            SourceKind::Elasticsearch,
            &fake.url(),
            es_fields(),
            Some(r#"{"match": {"title": "note"}}"#),
        ),
        1,
    );
    assert_eq!(rows.len(), 1);
    let seen = fake.received();
    assert_eq!(body(&seen[0])["query"], json!({"match": {"title": "note"}}));
    assert_eq!(body(&seen[0])["size"], 1);
    assert_eq!(seen.last().unwrap().method, "DELETE");
    let service = Service::new(SourceKind::Elasticsearch, Some(&fake.url()), es_fields()).unwrap();
    assert_eq!(
        quire_import::web::tables(SourceKind::Elasticsearch, &service).unwrap(),
        vec!["authors", "notes"]
    );
}

#[test]
fn elasticsearch_refusal_and_basic_auth() {
    let message = refused(
        SourceKind::Elasticsearch,
        es_fields(),
        fixture("elasticsearch", "unauthorized"),
    );
    assert!(message.contains("Elasticsearch") && message.contains("unable to authenticate"));
    // `user:password` is basic auth, and neither half shows in an error.
    let fake = FakeApi::start(|r| {
        if r.header("authorization") == Some("Basic ZWxhc3RpYzpjaGFuZ2VtZS1wbGVhc2U=") {
            (
                404,
                json!({"error": {"reason": "no such index [nope]"}, "status": 404}).to_string(),
            )
        } else {
            bad("auth")
        }
    });
    let mut fields = es_fields();
    fields.api_key = Some("elastic:changeme-please".to_string());
    let err = all(&source(
        SourceKind::Elasticsearch,
        &fake.url(),
        fields,
        None,
    ))
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("404") && text.contains("no such index"),
        "{text}"
    );
    assert!(!text.contains("changeme-please"), "{text}");
}

// ---- MongoDB (Data API) --------------------------------------------------------------------

fn mongo_fields() -> Service {
    Service {
        api_key: Some(KEY.to_string()),
        database: Some("shop".to_string()),
        collection: Some("notes".to_string()),
        ..Default::default()
    }
}

fn mongo_fake() -> FakeApi {
    FakeApi::start(|r| {
        if r.method != "POST" || r.target != "/app/data-abcde/endpoint/data/v1/action/find" {
            return bad("route");
        }
        if r.header("api-key") != Some(KEY) {
            return (401, fixture("mongodb", "unauthorized"));
        }
        let b = body(r);
        let expected = |skip: u64| {
            json!({"dataSource": "Cluster7", "database": "shop", "collection": "notes",
                "filter": {}, "sort": {"_id": 1}, "limit": 2, "skip": skip})
        };
        if b == expected(0) {
            (200, fixture("mongodb", "page1"))
        } else if b == expected(2) {
            (200, fixture("mongodb", "page2"))
        } else {
            bad("body")
        }
    })
}

#[test]
fn mongodb_documents_read_by_skip_with_extended_json_decoded() {
    let fake = mongo_fake();
    let uri = format!(
        "{}/app/data-abcde/endpoint/data/v1?dataSource=Cluster7",
        fake.url()
    );
    // A preview of 2 asks for a page of 2 and stops there.
    let rows = first(&source(SourceKind::Mongodb, &uri, mongo_fields(), None), 2);
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0],
        json!({"_id": "65e1a9f0c2a4b1d2e3f40001", "title": "First note", "stars": 5,
            "views": 9007199254740993i64, "created": "2024-03-01T09:30:00Z",
            "author": {"name": "Ann", "ref": "65e1a9f0c2a4b1d2e3f4aaaa"}})
    );
    assert_eq!(
        rows[1],
        json!({"_id": "65e1a9f0c2a4b1d2e3f40002", "title": "Second", "price": "9.99", "ratio": 0.5})
    );
    assert_eq!(fake.received().len(), 1);
}

#[test]
fn mongodb_pages_until_a_short_page() {
    // Pages of 2: a full page, then a short one ends the read.
    let fake = FakeApi::start(|r| {
        let b = body(r);
        if r.header("api-key") != Some(KEY) || r.target != "/v1/action/find" {
            return bad("request");
        }
        match (
            b["skip"].as_u64(),
            b["limit"].as_u64(),
            b["dataSource"].as_str(),
        ) {
            (Some(0), Some(1000), Some("Cluster0")) => {
                let page: Value = serde_json::from_str(&fixture("mongodb", "page1")).unwrap();
                let mut docs = Vec::new();
                for i in 0..1000 {
                    let mut d = page["documents"][i % 2].clone();
                    d["_id"] = json!({"$oid": format!("{i:024x}")});
                    docs.push(d);
                }
                (200, json!({"documents": docs}).to_string())
            }
            (Some(1000), Some(1000), Some("Cluster0")) => (200, fixture("mongodb", "page2")),
            _ => bad("paging"),
        }
    });
    let rows = all(&source(
        SourceKind::Mongodb,
        &format!("{}/v1", fake.url()),
        mongo_fields(),
        None,
    ))
    .unwrap();
    assert_eq!(rows.len(), 1001);
    assert_eq!(rows[1000]["title"], "Third");
    assert_eq!(rows[999]["_id"], format!("{:024x}", 999));
    assert_eq!(fake.received().len(), 2);
}

#[test]
fn mongodb_refusal_is_clear_without_the_key() {
    let message = refused(
        SourceKind::Mongodb,
        mongo_fields(),
        fixture("mongodb", "unauthorized"),
    );
    assert!(
        message.contains("MongoDB") && message.contains("invalid session"),
        "{message}"
    );
}

// ---- Firestore -----------------------------------------------------------------------------

fn firestore_fields() -> Service {
    Service {
        api_key: Some(KEY.to_string()),
        project: Some("demo-project".to_string()),
        collection: Some("notes".to_string()),
        ..Default::default()
    }
}

fn firestore_fake() -> FakeApi {
    FakeApi::start(|r| {
        if r.header("authorization") != Some(&format!("Bearer {KEY}")) {
            return (401, fixture("firestore", "unauthorized"));
        }
        let prefix = "/v1/projects/demo-project/databases/(default)/documents/notes?";
        let Some(query) = r.target.strip_prefix(prefix).filter(|_| r.method == "GET") else {
            return bad("route");
        };
        match query {
            "pageSize=300" => (200, fixture("firestore", "page1")),
            "pageSize=300&pageToken=AFTOeJyAbCdEf0123" => (200, fixture("firestore", "page2")),
            _ => bad("paging"),
        }
    })
}

#[test]
fn firestore_documents_read_by_page_token_with_typed_fields_decoded() {
    let fake = firestore_fake();
    let rows = all(&source(
        SourceKind::Firestore,
        &fake.url(),
        firestore_fields(),
        None,
    ))
    .unwrap();
    assert_eq!(
        rows,
        vec![
            json!({"title": "First note", "stars": 5, "score": 4.5, "done": true,
                "due": "2024-04-01T09:00:00Z", "author": {"name": "Ann", "age": 41},
                "tags": ["rust", "notes"], "id": "alpha",
                "name": "projects/demo-project/databases/(default)/documents/notes/alpha",
                "createTime": "2024-03-01T09:30:00.000000Z",
                "updateTime": "2024-03-02T10:00:00.000000Z"}),
            json!({"title": "Second", "tags": [], "id": "beta",
                "name": "projects/demo-project/databases/(default)/documents/notes/beta",
                "createTime": "2024-03-05T12:00:00.000000Z",
                "updateTime": "2024-03-05T12:00:00.000000Z"}),
        ]
    );
    assert_eq!(fake.received().len(), 2);
    let message = refused(
        SourceKind::Firestore,
        firestore_fields(),
        fixture("firestore", "unauthorized"),
    );
    assert!(message.contains("Firestore") && message.contains("invalid authentication"));
}

#[test]
fn more_rows_than_the_limit_refuse_the_import() {
    let fake = airtable_fake();
    let src = source(SourceKind::Airtable, &fake.url(), airtable_fields(), None);
    let small = Limits {
        max_bytes: 1 << 20,
        max_rows: 2,
    };
    let err = read(&src, &small, None).unwrap_err();
    assert!(matches!(err, ImportError::TooLarge(_)), "{err:?}");
}

// ---- Google Sheets -------------------------------------------------------------------------

const SHEET_ID: &str = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms";

fn gsheets_fields() -> Service {
    Service {
        api_key: Some(KEY.to_string()),
        database_id: Some(SHEET_ID.to_string()),
        table: Some("Reading list".to_string()),
        ..Default::default()
    }
}

/// Blocks of 1000 rows: the first is the fixture's rows cycled to a full block, the second
/// the short fixture block.
fn gsheets_fake() -> FakeApi {
    FakeApi::start(|r| {
        if r.header("authorization") != Some(&format!("Bearer {KEY}")) {
            return (401, fixture("gsheets", "unauthorized"));
        }
        let prefix = format!("/v4/spreadsheets/{SHEET_ID}/values/");
        let suffix = "?majorDimension=ROWS&valueRenderOption=UNFORMATTED_VALUE\
                      &dateTimeRenderOption=FORMATTED_STRING";
        let Some(range) = r
            .target
            .strip_prefix(&prefix)
            .and_then(|t| t.strip_suffix(suffix))
            .filter(|_| r.method == "GET")
        else {
            return bad("route");
        };
        match range {
            "%27Reading%20list%27%211%3A1000" => {
                let mut block: Value = serde_json::from_str(&fixture("gsheets", "block1")).unwrap();
                let rows = block["values"].as_array().unwrap().clone();
                let mut values = vec![rows[0].clone()];
                for i in 1..1000 {
                    values.push(rows[1 + (i - 1) % 3].clone());
                }
                block["values"] = Value::Array(values);
                (200, block.to_string())
            }
            "%27Reading%20list%27%211001%3A2000" => (200, fixture("gsheets", "block2")),
            "Notes%21A1%3AC3" => (200, fixture("gsheets", "block2")),
            _ => bad("range"),
        }
    })
}

#[test]
fn gsheets_rows_read_in_blocks_with_the_first_row_as_header() {
    let fake = gsheets_fake();
    let rows = all(&source(
        SourceKind::Gsheets,
        &fake.url(),
        gsheets_fields(),
        None,
    ))
    .unwrap();
    // 999 lines after the header, a third of them blank, then one more block of one row.
    assert_eq!(rows.len(), 666 + 1);
    assert_eq!(
        rows[0],
        json!({"Title": "Dune", "Author": "Frank Herbert", "Pages": 412, "Read": true,
            "Title_2": "again"})
    );
    assert_eq!(
        rows[1],
        json!({"Title": "Emma", "Author": "Jane Austen", "Read": false})
    );
    assert_eq!(
        rows[666],
        json!({"Title": "Ubik", "Author": "Philip K. Dick", "Pages": 202, "Read": true,
            "column_5": "x"})
    );
    assert_eq!(fake.received().len(), 2);
    // An A1 range is one request; a 401 is clear without the key.
    let mut fields = gsheets_fields();
    fields.table = Some("Notes!A1:C3".to_string());
    let service = Service::new(SourceKind::Gsheets, Some(&fake.url()), fields.clone()).unwrap();
    assert_eq!(
        service.source_name(SourceKind::Gsheets),
        format!("gsheets:{}/{SHEET_ID}/Notes!A1:C3", service.host())
    );
    let rows = all(&source(SourceKind::Gsheets, &fake.url(), fields, None)).unwrap();
    assert!(rows.is_empty(), "the one line is the header");
    let message = refused(
        SourceKind::Gsheets,
        gsheets_fields(),
        fixture("gsheets", "unauthorized"),
    );
    assert!(message.contains("Google Sheets"), "{message}");
}

// ---- Confluence ----------------------------------------------------------------------------

const CONFLUENCE_KEY: &str = "ann@example.com:ATATT3xFfGF0secretToken9";

fn confluence_fields() -> Service {
    Service {
        api_key: Some(CONFLUENCE_KEY.to_string()),
        table: Some("ENG".to_string()),
        ..Default::default()
    }
}

fn confluence_fake() -> FakeApi {
    FakeApi::start(|r| {
        // `email:token` as basic auth.
        if r.header("authorization")
            != Some("Basic YW5uQGV4YW1wbGUuY29tOkFUQVRUM3hGZkdGMHNlY3JldFRva2VuOQ==")
        {
            return (401, fixture("confluence", "unauthorized"));
        }
        let base = "/wiki/rest/api/content?spaceKey=ENG&type=page&status=current\
                    &expand=body.storage%2Cspace%2Cversion";
        let Some(paging) = r.target.strip_prefix(base).filter(|_| r.method == "GET") else {
            return bad("route");
        };
        match paging {
            "&start=0&limit=50" => (200, fixture("confluence", "page1")),
            "&start=1&limit=50" => (200, fixture("confluence", "page2")),
            _ => bad("paging"),
        }
    })
}

#[test]
fn confluence_pages_read_by_start_with_their_body_as_markdown() {
    let fake = confluence_fake();
    let uri = format!("{}/wiki", fake.url());
    let rows = all(&source(
        SourceKind::Confluence,
        &uri,
        confluence_fields(),
        None,
    ))
    .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], "65601");
    assert_eq!(rows[0]["title"], "Team handbook");
    assert_eq!(rows[0]["space"], "ENG");
    assert_eq!(rows[0]["version"], 7);
    assert_eq!(rows[0]["updated"], "2024-03-02T10:00:00.000Z");
    assert_eq!(
        rows[0]["url"],
        "https://example.atlassian.net/wiki/spaces/ENG/pages/65601/Team+handbook"
    );
    let body = rows[0]["body"].as_str().unwrap();
    for part in [
        "## On call",
        "**runbook**",
        "first & then",
        "[the wiki](https://example.com/runbook)",
        "- Page the lead",
        "Be kind.",
    ] {
        assert!(body.contains(part), "{part:?} in {body}");
    }
    assert!(!body.contains('<'), "{body}");
    assert!(
        rows[1]["body"].as_str().unwrap().contains("1. Tag"),
        "{}",
        rows[1]["body"]
    );
    assert_eq!(fake.received().len(), 2);
    // A 401: the email and token appear nowhere in the message.
    let fake = FakeApi::start(|_| (401, fixture("confluence", "unauthorized")));
    let err = all(&source(
        SourceKind::Confluence,
        &fake.url(),
        confluence_fields(),
        None,
    ))
    .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("Confluence")
            && message.contains("401")
            && message.contains("authenticated"),
        "{message}"
    );
    assert!(
        !message.contains("ATATT3xFfGF0secretToken9") && !message.contains("ann@example.com"),
        "{message}"
    );
}

// ---- DynamoDB ------------------------------------------------------------------------------

const AWS_ID: &str = "AKIDEXAMPLE";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

fn dynamodb_fields() -> Service {
    Service {
        api_key: Some(format!("{AWS_ID}:{AWS_SECRET}")),
        table: Some("notes".to_string()),
        ..Default::default()
    }
}

/// Checks the SigV4 signature itself: recomputed from the request as received, for the
/// scope's date and region.
fn signed_right(r: &Received) -> bool {
    let (Some(auth), Some(date), Some(host)) = (
        r.header("authorization"),
        r.header("x-amz-date"),
        r.header("host"),
    ) else {
        return false;
    };
    let Some(scope) = auth
        .strip_prefix(&format!("AWS4-HMAC-SHA256 Credential={AWS_ID}/"))
        .and_then(|rest| rest.split(',').next())
    else {
        return false;
    };
    let parts: Vec<&str> = scope.split('/').collect();
    if parts.len() != 4 || parts[2] != "dynamodb" || !date.starts_with(parts[0]) {
        return false;
    }
    let expected = quire_sigv4::sign(
        &quire_sigv4::Request {
            method: &r.method,
            host,
            path: &r.target,
            headers: &[
                ("content-type", r.header("content-type").unwrap_or("")),
                ("x-amz-target", r.header("x-amz-target").unwrap_or("")),
            ],
            body: &r.body,
        },
        &quire_sigv4::Credentials {
            access_key_id: AWS_ID.to_string(),
            secret_access_key: AWS_SECRET.to_string(),
            session_token: None,
        },
        parts[1],
        "dynamodb",
        date,
    );
    expected
        .iter()
        .any(|(name, value)| name == "authorization" && value == auth)
}

fn dynamodb_fake() -> FakeApi {
    FakeApi::start(|r| {
        if !signed_right(r) {
            return (400, fixture("dynamodb", "unauthorized"));
        }
        if r.method != "POST"
            || r.target != "/"
            || r.header("x-amz-target") != Some("DynamoDB_20120810.Scan")
            || r.header("content-type") != Some("application/x-amz-json-1.0")
        {
            return bad("request");
        }
        let b = body(r);
        if b["TableName"] != "notes" || b["Limit"] != 1000 {
            return bad("body");
        }
        match b.get("ExclusiveStartKey") {
            None => (200, fixture("dynamodb", "page1")),
            Some(key) if *key == json!({"id": {"S": "n2"}}) => (200, fixture("dynamodb", "page2")),
            Some(_) => bad("ExclusiveStartKey"),
        }
    })
}

#[test]
fn dynamodb_items_scan_signed_with_sigv4_and_paged_by_last_evaluated_key() {
    let fake = dynamodb_fake();
    let rows = all(&source(
        SourceKind::Dynamodb,
        &fake.url(),
        dynamodb_fields(),
        None,
    ))
    .unwrap();
    assert_eq!(
        rows,
        vec![
            json!({"id": "n1", "title": "First note", "stars": 5, "score": 4.5, "done": true,
                "tags": ["notes", "rust"], "sizes": [1, 2.5],
                "author": {"name": "Ann", "age": 41}, "history": ["draft", 2]}),
            json!({"id": "n2", "title": "Second"}),
            json!({"id": "n3", "title": "Third"}),
        ]
    );
    assert_eq!(fake.received().len(), 2);
    // A wrong secret: the fake's signature check fails; the secret is in no message.
    let mut fields = dynamodb_fields();
    fields.api_key = Some(format!("{AWS_ID}:wrongSecretKey123456"));
    let err = all(&source(SourceKind::Dynamodb, &fake.url(), fields, None)).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("DynamoDB") && message.contains("400") && message.contains("invalid"),
        "{message}"
    );
    assert!(!message.contains("wrongSecretKey123456"), "{message}");
    // No key in the request: refused before anything is sent, whatever the server's own
    // AWS environment holds (it never signs an import).
    let mut fields = dynamodb_fields();
    fields.api_key = None;
    let sent = fake.received().len();
    let err = all(&source(SourceKind::Dynamodb, &fake.url(), fields, None)).unwrap_err();
    assert!(
        err.to_string().contains("never used for an import"),
        "{err}"
    );
    assert_eq!(fake.received().len(), sent, "nothing sent");
    let message = refused(
        SourceKind::Dynamodb,
        dynamodb_fields(),
        fixture("dynamodb", "unauthorized"),
    );
    assert!(!message.contains(AWS_SECRET), "{message}");
    let service = Service::new(SourceKind::Dynamodb, Some(&fake.url()), dynamodb_fields()).unwrap();
    assert_eq!(
        service.source_name(SourceKind::Dynamodb),
        format!("dynamodb:{}/notes", service.host())
    );
    assert!(!format!("{service:?}").contains(AWS_SECRET));
    let real = Service::new(
        SourceKind::Dynamodb,
        Some("https://dynamodb.eu-west-1.amazonaws.com"),
        dynamodb_fields(),
    )
    .unwrap();
    assert_eq!(real.host(), "dynamodb.eu-west-1.amazonaws.com");
}

// ---- Firestore: browse, and a service account as `credentials` ------------------------------

const ACCESS_TOKEN: &str = "ya29.fake-firestore-access-token";

/// The test key pair of `quire-gauth` (made with `openssl genpkey`; it grants nothing).
fn gauth_key(name: &str) -> String {
    let path = format!(
        "{}/../quire-gauth/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A service account key whose token endpoint is the fake's `/token`.
fn service_account(url: &str) -> String {
    json!({
        "type": "service_account",
        "project_id": "demo-project",
        "client_email": "quire@demo-project.iam.gserviceaccount.com",
        "private_key": gauth_key("test-key.pem"),
        "token_uri": format!("{url}/token"),
    })
    .to_string()
}

/// Form decoding: `+` is a space, `%XX` a byte.
fn form(body: &[u8]) -> std::collections::HashMap<String, String> {
    let decode = |s: &str| {
        let bytes = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < bytes.len() => {
                    out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap_or(b'?'));
                    i += 2;
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    String::from_utf8_lossy(body)
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_string(), decode(v)))
        .collect()
}

/// The token endpoint: an access token for a JWT grant signed (RS256) by the test key with
/// the datastore scope, the account as issuer and this endpoint as audience; else 400.
fn token_endpoint(r: &Received) -> (u16, String) {
    if r.method != "POST" || r.header("content-type") != Some("application/x-www-form-urlencoded") {
        return bad("token request");
    }
    let form = form(&r.body);
    if form.get("grant_type").map(String::as_str)
        != Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    {
        return bad("grant_type");
    }
    let assertion = form.get("assertion").cloned().unwrap_or_default();
    match jsonwebtoken::decode_header(&assertion) {
        Ok(header) if header.alg == jsonwebtoken::Algorithm::RS256 => {}
        _ => return bad("no RS256 JWT"),
    }
    let public = gauth_key("test-key.pub.pem");
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&[format!("http://{}/token", r.header("host").unwrap_or(""))]);
    let Ok(data) = jsonwebtoken::decode::<Value>(
        &assertion,
        &jsonwebtoken::DecodingKey::from_rsa_pem(public.as_bytes()).expect("public key"),
        &validation,
    ) else {
        return bad("signature or audience");
    };
    let claims = data.claims;
    if claims["iss"] != "quire@demo-project.iam.gserviceaccount.com"
        || claims["scope"] != "https://www.googleapis.com/auth/datastore"
        || claims["exp"].as_u64() != claims["iat"].as_u64().map(|iat| iat + 3600)
    {
        return bad("claims");
    }
    (
        200,
        json!({"access_token": ACCESS_TOKEN, "expires_in": 3599, "token_type": "Bearer"})
            .to_string(),
    )
}

#[test]
fn firestore_browse_lists_the_collections_over_two_pages() {
    let fake = FakeApi::start(|r| {
        let route = "/v1/projects/demo-project/databases/(default)/documents:listCollectionIds";
        if r.method != "POST" || r.target != route {
            return bad("route");
        }
        if r.header("authorization") != Some(&format!("Bearer {KEY}")) {
            return (401, fixture("firestore", "unauthorized"));
        }
        let page = body(r);
        if page == json!({"pageSize": 300}) {
            (
                200,
                json!({"collectionIds": ["notes", "authors"], "nextPageToken": "CgVub3Rlcw"})
                    .to_string(),
            )
        } else if page == json!({"pageSize": 300, "pageToken": "CgVub3Rlcw"}) {
            (200, json!({"collectionIds": ["archive"]}).to_string())
        } else {
            bad("paging")
        }
    });
    let fields = Service {
        api_key: Some(KEY.to_string()),
        project: Some("demo-project".to_string()),
        collection: Some("-".to_string()),
        ..Default::default()
    };
    let service = Service::new(SourceKind::Firestore, Some(&fake.url()), fields).unwrap();
    let names = quire_import::web::tables(SourceKind::Firestore, &service).unwrap();
    assert_eq!(names, vec!["archive", "authors", "notes"]);
    assert_eq!(fake.received().len(), 2);
}

#[test]
fn firestore_credentials_are_exchanged_for_a_token_the_documents_are_read_with() {
    let fake = FakeApi::start(|r| {
        if r.target == "/token" {
            return token_endpoint(r);
        }
        if r.header("authorization") != Some(&format!("Bearer {ACCESS_TOKEN}")) {
            return (401, fixture("firestore", "unauthorized"));
        }
        let prefix = "/v1/projects/demo-project/databases/(default)/documents/notes?";
        match r.target.strip_prefix(prefix).filter(|_| r.method == "GET") {
            Some("pageSize=300") => (200, fixture("firestore", "page1")),
            Some("pageSize=300&pageToken=AFTOeJyAbCdEf0123") => {
                (200, fixture("firestore", "page2"))
            }
            _ => bad("route or paging"),
        }
    });
    let fields = Service {
        credentials: Some(service_account(&fake.url())),
        project: Some("demo-project".to_string()),
        collection: Some("notes".to_string()),
        ..Default::default()
    };
    assert!(!format!("{fields:?}").contains("PRIVATE KEY"));
    let rows = all(&source(SourceKind::Firestore, &fake.url(), fields, None)).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], "alpha");
    let received = fake.received();
    let statuses: Vec<(&str, u16)> = received
        .iter()
        .map(|r| (r.target.split('?').next().unwrap_or(""), r.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("/token", 200),
            (
                "/v1/projects/demo-project/databases/(default)/documents/notes",
                200
            ),
            (
                "/v1/projects/demo-project/databases/(default)/documents/notes",
                200
            ),
        ]
    );
}

#[test]
fn firestore_bad_credentials_are_a_clear_400_without_the_key() {
    let fake = FakeApi::start(|r| {
        if r.target == "/token" {
            return (
                400,
                json!({"error": "invalid_grant", "error_description": "Invalid JWT"}).to_string(),
            );
        }
        bad("no documents without a token")
    });
    let private = gauth_key("test-key.pem");
    let body_line = private.lines().nth(1).expect("a key line").to_string();
    let broken_key = json!({
        "type": "service_account",
        "client_email": "quire@demo-project.iam.gserviceaccount.com",
        "private_key": "-----BEGIN PRIVATE KEY-----\nNotAKeyZq8x3v9secretish\n-----END PRIVATE KEY-----\n",
        "token_uri": format!("{}/token", fake.url()),
    })
    .to_string();
    let cases = [
        (
            "{\"private_key\": \"-----BEGIN",
            "not a service account key",
        ),
        ("[1, 2]", "not a service account key"),
        (
            &*json!({"type": "service_account", "private_key": private.clone()}).to_string(),
            "no client_email",
        ),
        (&*broken_key, "private key of `credentials` is unreadable"),
        (
            &*service_account(&fake.url()),
            "token endpoint answered 400",
        ),
    ];
    for (credentials, expected) in cases {
        let fields = Service {
            credentials: Some(credentials.to_string()),
            project: Some("demo-project".to_string()),
            collection: Some("notes".to_string()),
            ..Default::default()
        };
        let err = all(&source(SourceKind::Firestore, &fake.url(), fields, None)).unwrap_err();
        let ImportError::BadRequest(message) = err else {
            panic!("{err:?}")
        };
        assert!(message.contains(expected), "{message}");
        assert!(
            message.contains("credentials") || message.contains("token"),
            "{message}"
        );
        for secret in [body_line.as_str(), "NotAKeyZq8x3v9secretish", "PRIVATE KEY"] {
            assert!(!message.contains(secret), "{message}");
        }
    }
    // Only the last case reached the token endpoint, and nothing else was asked.
    let received = fake.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].target, "/token");
    // Neither a key nor credentials: the error names both.
    let fields = Service {
        project: Some("demo-project".to_string()),
        collection: Some("notes".to_string()),
        ..Default::default()
    };
    let err = Service::new(SourceKind::Firestore, Some(&fake.url()), fields).unwrap_err();
    assert!(err.to_string().contains("connection.credentials"), "{err}");
}

// ---- Browse: Google Sheets' sheets, Confluence's spaces, DynamoDB's tables -----------------

#[test]
fn gsheets_browse_lists_the_sheets_of_the_spreadsheet() {
    let fake = FakeApi::start(|r| {
        let route = format!("/v4/spreadsheets/{SHEET_ID}?fields=sheets.properties.title");
        if r.method != "GET" || r.target != route {
            return bad("route");
        }
        if r.header("authorization") != Some(&format!("Bearer {KEY}")) {
            return (401, fixture("gsheets", "unauthorized"));
        }
        // The API answers every sheet at once (no paging), in tab order.
        (
            200,
            json!({"sheets": [
                {"properties": {"title": "Reading list"}},
                {"properties": {"title": "Authors"}},
                {"properties": {"title": "Notes"}},
            ]})
            .to_string(),
        )
    });
    let fields = Service {
        table: None,
        ..gsheets_fields()
    };
    let service = Service::new(SourceKind::Gsheets, Some(&fake.url()), fields.clone()).unwrap();
    let names = quire_import::web::tables(SourceKind::Gsheets, &service).unwrap();
    assert_eq!(names, vec!["Authors", "Notes", "Reading list"]);
    assert_eq!(fake.received().len(), 1);
    // A wrong token: a 400 naming the service and the status, without the token.
    let wrong = Service {
        api_key: Some("ya29.wrongToken4477".to_string()),
        ..service.clone()
    };
    let message = quire_import::web::tables(SourceKind::Gsheets, &wrong)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("Google Sheets") && message.contains("401"),
        "{message}"
    );
    assert!(!message.contains("wrongToken4477"), "{message}");
    // No spreadsheet, or no token: a BadRequest naming the field, nothing sent.
    let sent = fake.received().len();
    for (missing, field) in [
        (
            Service {
                database_id: None,
                ..fields.clone()
            },
            "database_id",
        ),
        (
            Service {
                api_key: None,
                ..fields.clone()
            },
            "api_key",
        ),
    ] {
        let err = Service::new(SourceKind::Gsheets, Some(&fake.url()), missing).unwrap_err();
        let ImportError::BadRequest(message) = err else {
            panic!("{err:?}")
        };
        assert!(message.contains(field), "{message}");
    }
    assert_eq!(fake.received().len(), sent, "nothing sent");
}

#[test]
fn confluence_browse_lists_the_space_keys_over_two_pages() {
    let fake = FakeApi::start(|r| {
        if r.header("authorization")
            != Some("Basic YW5uQGV4YW1wbGUuY29tOkFUQVRUM3hGZkdGMHNlY3JldFRva2VuOQ==")
        {
            return (401, fixture("confluence", "unauthorized"));
        }
        let Some(paging) = r
            .target
            .strip_prefix("/wiki/rest/api/space?limit=100")
            .filter(|_| r.method == "GET")
        else {
            return bad("route");
        };
        let space = |key: &str, name: &str| {
            json!({"id": 98306, "key": key, "name": name, "type": "global",
                "_links": {"webui": format!("/spaces/{key}")}})
        };
        match paging {
            "&start=0" => (
                200,
                json!({"results": [space("ENG", "Engineering"), space("~ann", "Ann")],
                    "start": 0, "limit": 100, "size": 2,
                    "_links": {"base": "https://example.atlassian.net/wiki",
                        "next": "/rest/api/space?limit=100&start=2"}})
                .to_string(),
            ),
            "&start=2" => (
                200,
                json!({"results": [space("DOCS", "Documentation")],
                    "start": 2, "limit": 100, "size": 1,
                    "_links": {"base": "https://example.atlassian.net/wiki"}})
                .to_string(),
            ),
            _ => bad("paging"),
        }
    });
    let uri = format!("{}/wiki", fake.url());
    let fields = Service {
        table: Some("-".to_string()),
        ..confluence_fields()
    };
    let service = Service::new(SourceKind::Confluence, Some(&uri), fields.clone()).unwrap();
    let names = quire_import::web::tables(SourceKind::Confluence, &service).unwrap();
    assert_eq!(names, vec!["DOCS", "ENG", "~ann"]);
    assert_eq!(fake.received().len(), 2);
    // No site URL, or no key: a BadRequest naming the field.
    let err = Service::new(SourceKind::Confluence, None, fields.clone()).unwrap_err();
    let ImportError::BadRequest(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("uri"), "{message}");
    let no_key = Service {
        api_key: None,
        ..fields
    };
    let err = Service::new(SourceKind::Confluence, Some(&uri), no_key).unwrap_err();
    let ImportError::BadRequest(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("api_key"), "{message}");
    assert_eq!(fake.received().len(), 2, "nothing sent");
}

#[test]
fn dynamodb_browse_lists_the_tables_over_two_pages_signed_with_sigv4() {
    let fake = FakeApi::start(|r| {
        if !signed_right(r) {
            return (400, fixture("dynamodb", "unauthorized"));
        }
        if r.method != "POST"
            || r.target != "/"
            || r.header("x-amz-target") != Some("DynamoDB_20120810.ListTables")
            || r.header("content-type") != Some("application/x-amz-json-1.0")
        {
            return bad("request");
        }
        let page = body(r);
        if page == json!({"Limit": 100}) {
            (
                200,
                json!({"TableNames": ["notes", "authors"], "LastEvaluatedTableName": "notes"})
                    .to_string(),
            )
        } else if page == json!({"Limit": 100, "ExclusiveStartTableName": "notes"}) {
            (200, json!({"TableNames": ["archive"]}).to_string())
        } else {
            bad("paging")
        }
    });
    let fields = Service {
        table: Some("-".to_string()),
        ..dynamodb_fields()
    };
    let service = Service::new(SourceKind::Dynamodb, Some(&fake.url()), fields.clone()).unwrap();
    let names = quire_import::web::tables(SourceKind::Dynamodb, &service).unwrap();
    assert_eq!(names, vec!["archive", "authors", "notes"]);
    assert_eq!(fake.received().len(), 2);
    // A wrong secret fails the fake's signature check; the secret is in no message.
    let wrong = Service {
        api_key: Some(format!("{AWS_ID}:wrongSecretKey123456")),
        ..service.clone()
    };
    let message = quire_import::web::tables(SourceKind::Dynamodb, &wrong)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("DynamoDB") && message.contains("400"),
        "{message}"
    );
    assert!(!message.contains("wrongSecretKey123456"), "{message}");
    // No key: a BadRequest naming it, nothing sent (the server's AWS identity never lists).
    let sent = fake.received().len();
    let no_key = Service::new(
        SourceKind::Dynamodb,
        Some(&fake.url()),
        Service {
            api_key: None,
            ..fields
        },
    )
    .unwrap();
    let err = quire_import::web::tables(SourceKind::Dynamodb, &no_key).unwrap_err();
    let ImportError::BadRequest(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("api_key"), "{message}");
    assert_eq!(fake.received().len(), sent, "nothing sent");
}
