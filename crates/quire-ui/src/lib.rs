//! The web UI: the single-page app built from `ui/` (committed in `ui/dist`), compiled into
//! the binary and served at `/`, so running quire needs no Node.
//!
//! * `/` and the client routes ([`CLIENT_ROUTES`]) answer `index.html`, `no-cache` (a new
//!   build is picked up at once; the ETag makes revalidation cheap).
//! * `/assets/…` are the build's content-hashed files: `immutable`, cached for a year.
//! * Nothing else is routed here: host routes (`/api/…`, `/health*`, `/readyz`, `/metrics`,
//!   `/p/…`, `/mcp`) are never shadowed, because the client routes are a fixed list of first
//!   path segments none of them uses.

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

mod dist {
    include!(concat!(env!("OUT_DIR"), "/dist.rs"));
}

/// First path segments of the app's own routes (`ui/src/router.ts` has the same list).
pub const CLIENT_ROUTES: &[&str] = &[
    "page",
    "edit",
    "new",
    "history",
    "search",
    "restructure",
    "approvals",
    "links",
    "graph",
    "views",
    "board",
    "canvas",
    "tags",
];

/// Where the hashed assets are served.
const ASSETS: &str = "assets";

/// The router of the UI, to be merged beside the API's (it has no fallback of its own).
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let mut router = Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route(&format!("/{ASSETS}/{{*file}}"), get(asset));
    for route in CLIENT_ROUTES {
        router = router
            .route(&format!("/{route}"), get(index))
            .route(&format!("/{route}/{{*rest}}"), get(index));
    }
    router
}

/// Every route of [`router`] (templates), for tests that check nothing is shadowed.
pub fn route_list() -> Vec<String> {
    let mut out = vec![
        "/".to_string(),
        "/index.html".to_string(),
        format!("/{ASSETS}/{{*file}}"),
    ];
    for route in CLIENT_ROUTES {
        out.push(format!("/{route}"));
        out.push(format!("/{route}/{{*rest}}"));
    }
    out
}

/// Whether the binary carries a build of the UI.
pub fn is_built() -> bool {
    file("index.html").is_some()
}

fn file(name: &str) -> Option<&'static [u8]> {
    dist::FILES
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|i| dist::FILES[i].1)
}

async fn index(headers: HeaderMap) -> Response {
    match file("index.html") {
        Some(body) => serve(
            body,
            "text/html; charset=utf-8",
            Caching::Revalidate,
            &headers,
        ),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "the web UI was not built into this binary (run `npm run build` in ui/)\n",
        )
            .into_response(),
    }
}

async fn asset(Path(name): Path<String>, headers: HeaderMap) -> Response {
    let path = format!("{ASSETS}/{name}");
    match file(&path) {
        Some(body) => serve(body, content_type(&path), Caching::Immutable, &headers),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"error":"no such asset"}"#,
        )
            .into_response(),
    }
}

enum Caching {
    /// Content-hashed names never change their bytes.
    Immutable,
    /// `index.html`: always asked again, answered 304 when unchanged.
    Revalidate,
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "html" => "text/html; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn serve(
    body: &'static [u8],
    content_type: &'static str,
    caching: Caching,
    headers: &HeaderMap,
) -> Response {
    let etag = HeaderValue::from_str(&format!("\"{:016x}\"", fnv1a(body)))
        .expect("a quoted hex string is a valid header value");
    let cache = HeaderValue::from_static(match caching {
        Caching::Immutable => "public, max-age=31536000, immutable",
        Caching::Revalidate => "no-cache",
    });
    if if_none_match(headers, &etag) {
        return (
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag), (header::CACHE_CONTROL, cache)],
        )
            .into_response();
    }
    (
        [
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache),
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
        ],
        body,
    )
        .into_response()
}

/// Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2).
fn if_none_match(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Some(Ok(value)) = headers.get(header::IF_NONE_MATCH).map(|v| v.to_str()) else {
        return false;
    };
    let etag = etag.to_str().unwrap_or_default();
    value
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// 64-bit FNV-1a: enough to tell two builds' files apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
