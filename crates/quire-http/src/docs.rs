//! The interactive API explorer at `/api/docs`: our page, plus the Swagger UI files vendored in
//! `assets/swagger-ui/` (see its README) and compiled into the binary. Host routes, left out of
//! the OpenAPI document; nothing is loaded from another origin.

use std::sync::OnceLock;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// Where the explorer is mounted; its assets are served below it.
const DOCS_PATH: &str = "/api/docs";

/// The page: Swagger UI on `/api/openapi.json`, assets by absolute path so that `/api/docs/`
/// works too. `validatorUrl: null` keeps the explorer from contacting the public validator.
const PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>quire API</title>
  <link rel="icon" type="image/png" sizes="32x32" href="/api/docs/favicon-32x32.png">
  <link rel="icon" type="image/png" sizes="16x16" href="/api/docs/favicon-16x16.png">
  <link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
  <div id="explorer"></div>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/explorer.js"></script>
</body>
</html>
"##;

/// Starts the explorer (a file of its own, so the page's Content-Security-Policy needs no
/// inline script).
const EXPLORER_JS: &str = r##"window.ui = SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#explorer",
  deepLinking: true,
  validatorUrl: null
});
document.body.style.margin = "0";
"##;

/// One file served by this module.
struct Asset {
    /// Path below `/api/docs/`.
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
    /// A hash of `body`, computed on first use.
    etag: OnceLock<HeaderValue>,
}

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const PNG: &str = "image/png";
const TEXT: &str = "text/plain; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

macro_rules! vendored {
    ($name:literal, $content_type:expr) => {
        Asset {
            name: $name,
            content_type: $content_type,
            body: include_bytes!(concat!("../assets/swagger-ui/", $name)),
            etag: OnceLock::new(),
        }
    };
}

static PAGE_ASSET: Asset = Asset {
    name: "",
    content_type: HTML,
    body: PAGE.as_bytes(),
    etag: OnceLock::new(),
};

/// Every vendored file the page loads, and the licence notices the bundle points to.
static ASSETS: [Asset; 6] = [
    Asset {
        name: "explorer.js",
        content_type: JS,
        body: EXPLORER_JS.as_bytes(),
        etag: OnceLock::new(),
    },
    vendored!("swagger-ui-bundle.js", JS),
    vendored!("swagger-ui-bundle.js.LICENSE.txt", TEXT),
    vendored!("swagger-ui.css", CSS),
    vendored!("favicon-32x32.png", PNG),
    vendored!("favicon-16x16.png", PNG),
];

/// `/api/docs`, `/api/docs/` and one route per asset; any other path below `/api/docs/` falls
/// through to the router's 404.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let page = get(|headers: HeaderMap| async move { serve(&PAGE_ASSET, &headers) });
    let mut router = Router::new()
        .route(DOCS_PATH, page.clone())
        .route(&format!("{DOCS_PATH}/"), page);
    for asset in &ASSETS {
        router = router.route(
            &format!("{DOCS_PATH}/{}", asset.name),
            get(move |headers: HeaderMap| async move { serve(asset, &headers) }),
        );
    }
    router
}

/// The paths [`routes`] serves.
pub(crate) fn route_names() -> Vec<String> {
    let mut out = vec![DOCS_PATH.to_string(), format!("{DOCS_PATH}/")];
    out.extend(ASSETS.iter().map(|a| format!("{DOCS_PATH}/{}", a.name)));
    out
}

/// The asset with its ETag; `Cache-Control: no-cache` makes browsers revalidate, and a
/// matching `If-None-Match` gets 304, so a new build is picked up at once and an unchanged
/// file is not sent twice.
fn serve(asset: &'static Asset, headers: &HeaderMap) -> Response {
    let etag = asset.etag.get_or_init(|| {
        HeaderValue::from_str(&format!("\"{:016x}\"", fnv1a(asset.body)))
            .expect("a quoted hex string is a valid header value")
    });
    let caching = [
        (header::ETAG, etag.clone()),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    if if_none_match(headers, etag.to_str().unwrap_or_default()) {
        return (StatusCode::NOT_MODIFIED, caching).into_response();
    }
    (
        caching,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        asset.body,
    )
        .into_response()
}

/// Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 §13.1.2 asks; a tag
/// sent without its quotes counts too).
pub(crate) fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    let Some(Ok(value)) = headers.get(header::IF_NONE_MATCH).map(|v| v.to_str()) else {
        return false;
    };
    let etag = etag.trim_matches('"');
    value
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag).trim_matches('"') == etag)
}

/// 64-bit FNV-1a: enough to tell two builds' files apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
