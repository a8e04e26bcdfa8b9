//! `GET /export`: JSON Lines and CSV, streamed, with the folder filter, columns, limit, content
//! and links; parquet 501, embeddings 503 without vector search (tests/vectors.rs has them
//! with it), an unknown format 400.

mod support;

use serde_json::{json, Value};
use support::{sync_git, TestServer};

fn server() -> TestServer {
    TestServer::with(
        sync_git(),
        Default::default(),
        &[
            (
                "notes/a.md",
                "---\ntitle: Alpha\ntags: [x, y]\nn: 3\n---\n# Alpha\n\nText, \"quoted\".\n",
            ),
            (
                "notes/b.md",
                "---\ntitle: Beta\nstatus: draft\n---\nSee [[a]] and [[missing]].\n",
            ),
            ("other/c.md", "No frontmatter.\n"),
            ("notes/image.png", "not a page"),
        ],
    )
}

fn lines(body: &str) -> Vec<Value> {
    body.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[tokio::test]
async fn jsonl_has_one_object_a_page_with_path_and_frontmatter() {
    let s = server();
    let r = s.get("/api/quire/export?format=jsonl").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), "application/x-ndjson");
    let rows = lines(&r.text());
    assert_eq!(
        rows,
        vec![
            json!({"path": "notes/a.md", "title": "Alpha", "tags": ["x", "y"], "n": 3}),
            json!({"path": "notes/b.md", "title": "Beta", "status": "draft"}),
            json!({"path": "other/c.md"}),
        ]
    );
}

#[tokio::test]
async fn jsonl_with_content_links_folder_columns_and_limit() {
    let s = server();
    let r = s
        .get("/api/quire/export?format=jsonl&path=notes&include-content=true&include-links=true")
        .await;
    let rows = lines(&r.text());
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["content"], json!("# Alpha\n\nText, \"quoted\".\n"));
    assert_eq!(
        rows[1]["links"],
        json!(["notes/a.md"]),
        "unresolved links left out"
    );
    assert_eq!(rows[0]["links"], json!([]));
    let r = s
        .get("/api/quire/export?format=jsonl&columns=title,n&limit=1")
        .await;
    assert_eq!(
        lines(&r.text()),
        vec![json!({"path": "notes/a.md", "title": "Alpha", "n": 3})]
    );
    let r = s.get("/api/quire/export?format=jsonl&path=/other/").await;
    assert_eq!(lines(&r.text()), vec![json!({"path": "other/c.md"})]);
    let r = s.get("/api/quire/export?format=jsonl&path=note").await;
    assert_eq!(r.text(), "", "a folder prefix matches whole folders");
}

#[tokio::test]
async fn csv_has_path_then_the_columns_and_reads_back() {
    let s = server();
    let r = s
        .get("/api/quire/export?format=csv&columns=title,tags&include-content=true")
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), "text/csv; charset=utf-8");
    let text = r.text();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    assert_eq!(
        reader.headers().unwrap(),
        vec!["path", "title", "tags", "content"]
    );
    let records: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    assert_eq!(
        records[0],
        vec![
            "notes/a.md",
            "Alpha",
            "[\"x\",\"y\"]",
            "# Alpha\n\nText, \"quoted\".\n"
        ]
    );
    assert_eq!(records[2], vec!["other/c.md", "", "", "No frontmatter.\n"]);
    // Without `columns`: the union of the exported pages' keys, sorted.
    let r = s.get("/api/quire/export?format=csv&path=notes").await;
    let text = r.text();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    assert_eq!(
        reader.headers().unwrap(),
        vec!["path", "n", "status", "tags", "title"]
    );
    assert_eq!(reader.records().count(), 2);
}

#[tokio::test]
async fn bad_exports_answer_their_status() {
    let s = server();
    for (uri, status, needle) in [
        ("/api/quire/export?format=parquet", 501, "parquet"),
        ("/api/quire/export?format=xml", 400, "unknown export format"),
        ("/api/quire/export", 400, "format"),
        (
            "/api/quire/export?format=jsonl&include-embeddings=true",
            503,
            "vector search off",
        ),
        ("/api/quire/export?format=jsonl&path=../x", 400, ""),
        ("/api/quire/export?format=jsonl&limit=many", 400, "limit"),
    ] {
        let r = s.get(uri).await;
        let message = r.expect_error(status);
        assert!(message.contains(needle), "{uri}: {message}");
    }
}

#[tokio::test]
async fn a_large_export_streams_every_page() {
    let files: Vec<(String, String)> = (0..1500)
        .map(|i| {
            (
                format!("bulk/p{i:04}.md"),
                format!("---\nn: {i}\n---\nBody {i}\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let s = TestServer::with(sync_git(), Default::default(), &refs);
    let r = s
        .get("/api/quire/export?format=jsonl&include-content=true")
        .await;
    let rows = lines(&r.text());
    assert_eq!(rows.len(), 1500);
    assert_eq!(
        rows[1499],
        json!({"path": "bulk/p1499.md", "n": 1499, "content": "Body 1499\n"})
    );
}
