//! `GET /export`: JSON Lines, CSV and Parquet, streamed, with the folder filter, columns,
//! limit, content and links; embeddings 503 without vector search (tests/vectors.rs has them
//! with it), an unknown format 400. Parquet files are read back by pyarrow, an independent
//! reader (skipped when it is missing unless `QUIRE_REQUIRE_PYARROW` is set).
//!
//! `POST /export/document`: HTML, PDF (its text read back by poppler's `pdftotext`, required
//! under `QUIRE_REQUIRE_PDFTOTEXT`), slides, a site as a zip whose every link lands on a file
//! of the zip; bad input.

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

/// Runs `script` with `python3`, the file at `path` as its argument; `None` when a module it
/// imports is missing and `require` is not set.
fn python(script: &str, path: &std::path::Path, require: &str) -> Option<String> {
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(path)
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("ModuleNotFoundError") {
        assert!(
            std::env::var_os(require).is_none(),
            "{require} is set but python3 lacks a module: {stderr}"
        );
        eprintln!("skipped: {stderr}");
        return None;
    }
    assert!(out.status.success(), "python failed: {stderr}");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

const PYARROW_READ: &str = r#"
import json, sys
import pyarrow.parquet as pq
table = pq.read_table(sys.argv[1])
print(json.dumps({
    "schema": {f.name: str(f.type) for f in table.schema},
    "rows": json.loads(json.dumps(table.to_pylist(), default=str)),
    "row_groups": pq.ParquetFile(sys.argv[1]).num_row_groups,
}))
"#;

fn read_parquet(bytes: &[u8]) -> Option<Value> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.parquet");
    std::fs::write(&path, bytes).unwrap();
    let out = python(PYARROW_READ, &path, "QUIRE_REQUIRE_PYARROW")?;
    Some(serde_json::from_str(&out).unwrap())
}

#[tokio::test]
async fn parquet_has_a_typed_schema_that_pyarrow_reads_back() {
    let s = server();
    let r = s
        .get("/api/quire/export?format=parquet&path=notes&include-content=true&include-links=true")
        .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), "application/vnd.apache.parquet");
    assert_eq!(&r.body[..4], b"PAR1");
    let Some(table) = read_parquet(&r.body) else {
        return;
    };
    assert_eq!(
        table["schema"],
        json!({
            "path": "string", "title": "string", "tags": "list<element: string not null>",
            "modified": "timestamp[ms, tz=UTC]", "frontmatter": "string", "content": "string",
            "links": "list<element: string not null>"
        })
    );
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["path"], "notes/a.md");
    assert_eq!(rows[0]["title"], "Alpha");
    assert_eq!(rows[0]["tags"], json!(["x", "y"]));
    assert!(rows[0]["modified"].as_str().unwrap().starts_with("20"));
    let fm: Value = serde_json::from_str(rows[0]["frontmatter"].as_str().unwrap()).unwrap();
    assert_eq!(fm, json!({"title": "Alpha", "tags": ["x", "y"], "n": 3}));
    assert_eq!(rows[0]["content"], "# Alpha\n\nText, \"quoted\".\n");
    assert_eq!(rows[1]["links"], json!(["notes/a.md"]));
    assert_eq!(rows[1]["tags"], json!([]));

    // `columns`: each its own column, typed by the values the pages hold.
    let r = s
        .get("/api/quire/export?format=parquet&columns=n,status,title&limit=2")
        .await;
    let table = read_parquet(&r.body).unwrap();
    assert_eq!(
        table["schema"],
        json!({
            "path": "string", "title": "string", "tags": "list<element: string not null>",
            "modified": "timestamp[ms, tz=UTC]", "n": "int64", "status": "string"
        })
    );
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows[0]["n"], 3);
    assert_eq!(rows[1]["n"], Value::Null);
    assert_eq!(rows[1]["status"], "draft");
}

#[tokio::test]
async fn a_large_parquet_export_is_several_row_groups() {
    let files: Vec<(String, String)> = (0..9000)
        .map(|i| {
            (
                format!("bulk/p{i:04}.md"),
                format!("---\nn: {i}\nscore: {}.5\n---\nBody {i} #t{}\n", i, i % 3),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let s = TestServer::with(sync_git(), Default::default(), &refs);
    // Typing the columns reads the catalog, which answers 503 while it is first built.
    let mut r = s
        .get("/api/quire/export?format=parquet&columns=n,score&include-content=true")
        .await;
    for _ in 0..300 {
        if r.status != 503 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        r = s
            .get("/api/quire/export?format=parquet&columns=n,score&include-content=true")
            .await;
    }
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let Some(table) = read_parquet(&r.body) else {
        return;
    };
    assert_eq!(table["row_groups"], 2);
    assert_eq!(table["schema"]["score"], "double");
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 9000);
    assert_eq!(rows[8999]["n"], 8999);
    assert_eq!(rows[8999]["score"], 8999.5);
    assert_eq!(rows[8999]["tags"], json!(["t2"]));
    assert_eq!(rows[8999]["content"], "Body 8999 #t2\n");
}

fn document_server() -> TestServer {
    TestServer::with(
        sync_git(),
        Default::default(),
        &[
            (
                "guide/intro.md",
                "---\ntitle: Guide intro\n---\n# Getting started\n\nRead [[setup|the setup]] \
and [the deep part](sub/deep%20dive.md#details). ![[diagram.png]]\n\n## Second part\n\n\
- one\n- **two**\n\n```\ncode line\n```\n",
            ),
            (
                "guide/setup.md",
                "# Setup\n\nInstall it. Back to [[intro]] or out to [[notes/a]].\n\n---\n\nMore setup.\n",
            ),
            (
                "guide/sub/deep dive.md",
                "# Deep dive\n\n## Details\n\nSee [[#Details]] and [[intro#Second part]].\n",
            ),
            ("guide/diagram.png", "\u{89}PNG fake"),
            ("notes/a.md", "# Outside\n"),
        ],
    )
}

async fn document(s: &TestServer, format: &str, path: &str) -> support::Reply {
    let r = s
        .post_json(
            "/api/quire/export/document",
            json!({"format": format, "path": path}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    r
}

#[tokio::test]
async fn html_is_one_document_with_links_between_its_pages_as_anchors() {
    let s = document_server();
    let r = document(&s, "html", "guide").await;
    assert_eq!(r.header("content-type"), "text/html; charset=utf-8");
    assert!(r.header("content-disposition").contains("guide.html"));
    let html = r.text();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Pages in path order, each a section; wiki and markdown links to them are anchors.
    assert!(html.contains("<section class=\"doc-page\" id=\"p0\">"));
    assert!(html.contains("href=\"#p1\""), "[[setup]]: {html}");
    assert!(
        html.contains("href=\"#p2-details\""),
        "markdown link with a heading"
    );
    assert!(
        html.contains("href=\"#p0-second-part\""),
        "[[intro#Second part]]"
    );
    assert!(html.contains("id=\"p0-second-part\""));
    // A page outside the document stays text; the image is inlined.
    assert!(html.contains("out to notes/a."), "{html}");
    assert!(!html.contains("href=\"notes/a"), "{html}");
    assert!(html.contains("src=\"data:image/png;base64,"));
    // One page alone, titled by it.
    let r = document(&s, "html", "guide/setup.md").await;
    assert!(r.text().contains("<title>Setup</title>"));
    assert!(r.header("content-disposition").contains("Setup.html"));
}

#[tokio::test]
async fn pdf_carries_the_text_of_headings_and_body() {
    let s = document_server();
    let r = document(&s, "pdf", "guide").await;
    assert_eq!(r.header("content-type"), "application/pdf");
    assert!(r.body.starts_with(b"%PDF-"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guide.pdf");
    std::fs::write(&path, &r.body).unwrap();
    let out = match std::process::Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("QUIRE_REQUIRE_PDFTOTEXT").is_none(),
                "QUIRE_REQUIRE_PDFTOTEXT is set but pdftotext cannot run: {e}"
            );
            eprintln!("skipped: pdftotext: {e}");
            return;
        }
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "Getting started",
        "Second part",
        "Read the setup and the deep part.",
        "code line",
        "two",
        "Install it. Back to intro or out to notes/a.",
        "Deep dive",
        "Details",
    ] {
        assert!(text.contains(needle), "{needle:?} not in {text}");
    }
    // Each page starts a sheet: three pages, three form feeds.
    assert_eq!(text.matches('\u{c}').count(), 3, "{text}");
}

#[tokio::test]
async fn slides_are_one_file_a_slide_per_section_with_keys() {
    let s = document_server();
    let r = document(&s, "slides", "guide").await;
    assert_eq!(r.header("content-type"), "text/html; charset=utf-8");
    let html = r.text();
    // intro: two top-level sections; setup: cut at `---`; deep dive: two headings.
    assert_eq!(
        html.matches("<section class=\"slide\"").count(),
        6,
        "{html}"
    );
    assert!(html.contains("ArrowRight") && html.contains("<script>"));
    assert!(html.contains("<span id=\"p1\"></span>"));
}

const SITE_CHECK: &str = r#"
import json, posixpath, sys, zipfile
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
class Links(HTMLParser):
    def __init__(self):
        super().__init__(); self.links = []; self.ids = set()
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v: self.links.append(v)
            if k == "id": self.ids.add(v)
ids, links = {}, []
for name in names:
    if name.endswith(".html"):
        p = Links(); p.feed(z.read(name).decode()); ids[name] = p.ids
        links += [(name, l) for l in p.links]
broken, checked = [], 0
for name, link in links:
    u = urlsplit(link)
    if u.scheme or link.startswith("//"): continue
    target = posixpath.normpath(posixpath.join(posixpath.dirname(name), unquote(u.path))) if u.path else name
    checked += 1
    if target not in names or (u.fragment and u.fragment not in ids.get(target, ())):
        broken.append([name, link])
print(json.dumps({"files": sorted(names), "checked": checked, "broken": broken}))
"#;

#[tokio::test]
async fn a_site_is_a_zip_whose_every_link_lands_inside_it() {
    let s = document_server();
    let r = document(&s, "site", "guide").await;
    assert_eq!(r.header("content-type"), "application/zip");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("site.zip");
    std::fs::write(&path, &r.body).unwrap();
    let out = python(SITE_CHECK, &path, "QUIRE_REQUIRE_PYTHON_SDK").expect("stdlib only");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["files"],
        json!([
            "guide/diagram.png",
            "guide/intro.html",
            "guide/setup.html",
            "guide/sub/deep dive.html",
            "index.html"
        ])
    );
    assert_eq!(report["broken"], json!([]), "{report}");
    assert!(report["checked"].as_u64().unwrap() >= 10, "{report}");
}

#[tokio::test]
async fn bad_document_exports_answer_their_status_and_write_nothing() {
    let s = document_server();
    let before = s.get("/api/quire/export?format=jsonl").await.text();
    for (body, status, needle) in [
        (
            json!({"format": "docx", "path": "guide"}),
            400,
            "unknown document format",
        ),
        (json!({"format": "pdf", "path": "nowhere"}), 404, "no page"),
        (
            json!({"format": "html", "path": "guide/missing.md"}),
            404,
            "no page",
        ),
        (json!({"format": "html"}), 400, "path"),
        (json!({"format": "html", "path": "../x"}), 404, ""),
    ] {
        let r = s
            .post_json("/api/quire/export/document", body.clone())
            .await;
        let message = r.expect_error(status);
        assert!(message.contains(needle), "{body}: {message}");
    }
    assert_eq!(s.get("/api/quire/export?format=jsonl").await.text(), before);
}
