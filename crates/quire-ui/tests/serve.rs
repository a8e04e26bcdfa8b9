//! The UI router alone: index and client routes, assets with their types and caching,
//! conditional requests, and what it does not answer.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

async fn get(path: &str, headers: &[(&str, &str)]) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let mut req = Request::get(path);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = quire_ui::router::<()>()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, headers, body)
}

fn index_asset(index: &str, ext: &str) -> String {
    index
        .split('"')
        .find(|part| part.starts_with("/assets/index-") && part.ends_with(ext))
        .expect("index.html loads the hashed entry")
        .to_string()
}

#[tokio::test]
async fn index_and_client_routes_answer_the_app_uncached() {
    assert!(quire_ui::is_built(), "ui/dist is committed");
    for path in [
        "/",
        "/page/notes/a.md",
        "/edit/x%20y.md",
        "/restructure",
        "/search",
        "/graph",
        "/views?name=open",
        "/board",
        "/canvas?path=maps/a.canvas.json",
    ] {
        let (status, headers, body) = get(path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers[header::CONTENT_TYPE], "text/html; charset=utf-8");
        assert_eq!(headers[header::CACHE_CONTROL], "no-cache");
        let html = String::from_utf8(body).unwrap();
        assert!(html.contains("<div id=\"app\">"), "{path}");
        assert!(
            !html.contains("<script>"),
            "no inline script (CSP script-src 'self')"
        );
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_typed() {
    let (_, _, body) = get("/", &[]).await;
    let index = String::from_utf8(body).unwrap();
    for (ext, ty) in [
        (".js", "text/javascript; charset=utf-8"),
        (".css", "text/css; charset=utf-8"),
    ] {
        let path = index_asset(&index, ext);
        let (status, headers, body) = get(&path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers[header::CONTENT_TYPE], ty);
        assert_eq!(
            headers[header::CACHE_CONTROL],
            "public, max-age=31536000, immutable"
        );
        assert!(!body.is_empty());
        let etag = headers[header::ETAG].to_str().unwrap().to_string();
        let (status, _, body) = get(&path, &[("if-none-match", &etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED);
        assert!(body.is_empty());
    }
}

#[tokio::test]
async fn unknown_assets_and_escapes_are_404() {
    for path in [
        "/assets/nope.js",
        "/assets/../index.html",
        "/assets/%2e%2e/index.html",
    ] {
        let (status, headers, _) = get(path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    }
}

#[tokio::test]
async fn host_routes_are_not_answered_by_the_ui() {
    // Nothing here: the API's router (merged beside this one) answers them, or its fallback.
    for path in [
        "/api/quire/file",
        "/api/docs",
        "/health",
        "/healthz",
        "/readyz",
        "/metrics",
        "/p/notes/a.md",
        "/mcp",
        "/pages",
        "/favicon.ico",
    ] {
        let (status, _, _) = get(path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    for route in quire_ui::route_list() {
        let first = route.trim_start_matches('/').split('/').next().unwrap();
        assert!(
            !["api", "health", "healthz", "readyz", "metrics", "p", "mcp"].contains(&first),
            "{route} would shadow a host route"
        );
    }
}

#[test]
fn client_routes_are_those_of_the_app() {
    // `ui/src/router.ts` names the same first segments (`CLIENT_PREFIXES`).
    let router = include_str!("../../../ui/src/router.ts");
    let line = router
        .lines()
        .find(|l| l.starts_with("export const CLIENT_PREFIXES"))
        .expect("router.ts declares CLIENT_PREFIXES");
    let list = &line[line.find('[').unwrap() + 1..line.rfind(']').unwrap()];
    let prefixes: Vec<&str> = list
        .split(',')
        .map(|p| p.trim().trim_matches('\''))
        .filter(|p| !p.is_empty())
        .collect();
    assert_eq!(prefixes, quire_ui::CLIENT_ROUTES);
}
