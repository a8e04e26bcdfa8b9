//! The API explorer at `/api/docs`: our page, the vendored assets it loads, nothing remote.

mod support;

use axum::body::Body;
use axum::http::Method;
use support::TestServer;

/// Every `src="…"` and `href="…"` of the page.
fn references(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"", "href=\""] {
        let mut rest = page;
        while let Some(at) = rest.find(attr) {
            rest = &rest[at + attr.len()..];
            let end = rest.find('"').expect("attribute is closed");
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    out
}

fn expected_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap() {
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        other => panic!("unexpected asset type {other} ({path})"),
    }
}

/// The vendored file as it is in the repository.
fn vendored(name: &str) -> Vec<u8> {
    let path = format!("{}/assets/swagger-ui/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[tokio::test]
async fn docs_page_is_html_with_local_assets_only() {
    let s = TestServer::new();
    for uri in ["/api/docs", "/api/docs/"] {
        let r = s.get(uri).await;
        assert_eq!(r.status, 200, "{uri}");
        assert_eq!(
            r.header("content-type"),
            "text/html; charset=utf-8",
            "{uri}"
        );
        assert!(!r.header("cache-control").is_empty(), "{uri}");
        let page = r.text();
        assert!(page.contains("<title>quire API</title>"), "{page}");
        assert!(!page.contains("<script>"), "no inline script: {page}");
        assert!(r
            .header("content-security-policy")
            .contains("script-src 'self'"));
        assert!(r
            .header("content-security-policy")
            .contains("frame-ancestors 'none'"));
        assert_eq!(r.header("x-frame-options"), "DENY");
        assert_eq!(r.header("referrer-policy"), "no-referrer");
        assert_eq!(r.header("x-content-type-options"), "nosniff");
        let explorer = s.get("/api/docs/explorer.js").await.text();
        assert!(explorer.contains("\"/api/openapi.json\""), "{explorer}");
        assert!(!page.contains("http://"), "remote URL in the page: {page}");
        assert!(!page.contains("https://"), "remote URL in the page: {page}");
        assert!(!page.contains("//cdn"), "{page}");
        let refs = references(&page);
        assert!(
            refs.iter().any(|r| r.ends_with(".js")) && refs.iter().any(|r| r.ends_with(".css")),
            "{refs:?}"
        );
        for reference in refs {
            assert!(reference.starts_with("/api/docs/"), "{reference}");
        }
    }
}

#[tokio::test]
async fn every_referenced_asset_is_served_unchanged() {
    let s = TestServer::new();
    let page = s.get("/api/docs").await.text();
    let mut refs = references(&page);
    // Not loaded by the page, but named by the bundle's first line.
    refs.push("/api/docs/swagger-ui-bundle.js.LICENSE.txt".into());
    for uri in refs {
        let r = s.get(&uri).await;
        assert_eq!(r.status, 200, "{uri}");
        assert_eq!(r.header("content-type"), expected_type(&uri), "{uri}");
        assert_eq!(r.header("x-content-type-options"), "nosniff", "{uri}");
        assert!(!r.header("cache-control").is_empty(), "{uri}");
        assert!(!r.header("etag").is_empty(), "{uri}");
        assert!(!r.body.is_empty(), "{uri}");
        let name = uri.strip_prefix("/api/docs/").unwrap();
        if name == "explorer.js" {
            continue; // ours, not vendored
        }
        assert!(
            r.body == vendored(name),
            "{uri} differs from the vendored file"
        );
    }
}

#[tokio::test]
async fn json_answers_carry_nosniff_but_no_page_policy() {
    let s = TestServer::new();
    let r = s.get("/api/openapi.json").await;
    assert_eq!(r.header("x-content-type-options"), "nosniff");
    assert!(r.header("content-security-policy").is_empty());
}

#[tokio::test]
async fn a_known_etag_gets_304() {
    let s = TestServer::new();
    for uri in ["/api/docs", "/api/docs/swagger-ui.css"] {
        let etag = s.get(uri).await.header("etag");
        assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
        let r = s
            .call(Method::GET, uri, &[("if-none-match", &etag)], Body::empty())
            .await;
        assert_eq!(r.status, 304, "{uri}");
        assert!(r.body.is_empty(), "{uri}");
        assert_eq!(r.header("etag"), etag, "{uri}");
        let r = s
            .call(
                Method::GET,
                uri,
                &[("if-none-match", "\"0000000000000000\"")],
                Body::empty(),
            )
            .await;
        assert_eq!(r.status, 200, "{uri}");
    }
}

#[tokio::test]
async fn unknown_assets_are_the_usual_404() {
    let s = TestServer::new();
    for uri in [
        "/api/docs/nope.js",
        "/api/docs/swagger-ui.css.map",
        "/api/docs/index.html",
        "/api/docs/swagger-ui-bundle.js/x",
    ] {
        s.get(uri).await.expect_error(404);
    }
}

#[tokio::test]
async fn docs_routes_are_not_in_the_openapi_document() {
    let s = TestServer::new();
    let doc = s.get("/api/openapi.json").await.json();
    let paths = doc["paths"].as_object().unwrap();
    assert!(
        paths.keys().all(|p| !p.starts_with("/api/docs")),
        "{:?}",
        paths.keys().collect::<Vec<_>>()
    );
}
