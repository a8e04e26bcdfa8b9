//! REST + SSE adapter (axum) over `quire-service`, with the OpenAPI document generated from
//! the handlers' annotations.
//!
//! Routes of a space live under `/api/quire` (default space, or header `X-Quire-Space`) and
//! `/api/quire/{space}`; host routes are `/health`, `/healthz`, `/readyz`, `/metrics`,
//! `/api/openapi.json` and the API explorer `/api/docs`. Every route passes the
//! authentication layer (`auth`), which lets the public ones through.

pub mod audit;
pub mod auth;
mod backup;
mod context;
mod credentials;
mod docs;
mod error;
mod events;
mod feeds;
mod files;
pub mod gate;
mod health;
mod import;
mod metrics;
pub mod oidc;
mod ops;
mod readers;
pub mod server;
mod settings;
mod spaces;
mod unbuilt;
pub mod visibility;
mod webhooks;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::response::IntoResponse;
use axum::{Json, Router};
use quire_service::Service;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use auth::{AuthHandle, AuthPolicy};
pub use context::SPACE_HEADER;
pub use error::{ApiError, ErrorBody};
pub use gate::{Anonymous, Gate};
pub use settings::{needs_restart, HttpSettings, Reload, SetupError, RELOADED_SECTIONS};

/// Where the API of a space is mounted (DECISIONS §1: `{base_url}`).
pub const BASE_PATH: &str = "/api/quire";
/// The spaces API (a host route).
pub const SPACES_PATH: &str = "/api/spaces";
/// Largest request body accepted (file writes, bulk, uploads).
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Shared state of every handler.
#[derive(Clone)]
pub struct AppState {
    pub service: Arc<Service>,
    /// `[audit] enabled`: the log `GET /audit` reads.
    pub audit: Option<Arc<audit::AuditLog>>,
    /// Request counts and latencies, SSE subscribers.
    pub metrics: Arc<metrics::HttpMetrics>,
    /// `[space] visibility` of every space, as it is now.
    pub visibility: Arc<visibility::Visibilities>,
    /// `[webhooks] enabled`: the registrations and queues of every space.
    pub webhooks: Option<Arc<dyn quire_service::WebhookRegistry>>,
    /// The protocol servers `/readyz` reports.
    pub protocols: Arc<std::collections::BTreeMap<String, quire_api::ProtocolStatus>>,
    /// `[server] max_event_streams`.
    pub max_event_streams: usize,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "quire",
        description = "Self-hosted knowledge base: markdown pages under git, with safe restructuring. \
Every path below is also served under `/api/quire/{space}/…` for a named space; the header \
`X-Quire-Space` selects a space too. Errors are `{\"error\": …}`."
    ),
    tags(
        (name = "files", description = "Files and structure"),
        (name = "versions", description = "History of files"),
        (name = "events", description = "Server-Sent Events"),
        (name = "search", description = "Full-text search, DQL queries, backlinks, the index"),
        (name = "graph", description = "The link graph and its analytics"),
        (name = "views", description = "Saved views and computed view pages"),
        (name = "drafts", description = "Drafts: changes on a git branch of their own until merged"),
        (name = "workflows", description = "Workflow definitions, page states, boards, and frontmatter schemas"),
        (name = "pages", description = "Looking at pages: lint, peek, sections"),
        (name = "analytics", description = "Health of the pages, velocity, memory, context, eligible tasks, search evaluation and search analytics"),
        (name = "restructuring", description = "Plans, renames and moves that keep every link working"),
        (name = "health", description = "Liveness and readiness"),
        (name = "admin", description = "Operating quire: the audit log, the backup status"),
        (name = "webhooks", description = "Signed POSTs of changes to registered URLs"),
        (name = "collaboration", description = "Comments, share links, published pages, the rules file for coding agents, the theme"),
        (name = "canvas", description = "Canvases (`*.canvas.json`, JSON Canvas 1.0): read, write, patch, query, auto-layout, generate from the link graph"),
        (name = "spaces", description = "The spaces this server hosts: listing, adding and removing them"),
        (name = "mount", description = "The file-system layer, for `quire mount` of a root this server holds: stat, list, read, write, folders, delete, rename, as the server's own FUSE mount calls them (editors' scratch files in memory, renames through the planner)"),
        (name = "import", description = "Import from files, databases and web services (csv, json, jsonl, yaml, excel, sqlite, markdown and obsidian folders or zips, postgres, mysql, redis, notion, airtable, gsheets, confluence, elasticsearch, mongodb, firestore, dynamodb) as pages in one commit, previews, uploads, the tables of a source (browse), saved connections and scheduled syncs, ingestion of office documents, web clipping, and export as JSON Lines, CSV, Parquet or documents (HTML, PDF, slides, a static site). Not built (501): the Airbyte routes")
    )
)]
struct ApiDoc;

fn space_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(files::upload_asset))
        .routes(routes!(import::upload))
        .routes(routes!(events::events))
        .routes(routes!(feeds::feed_atom))
        .routes(routes!(feeds::feed_json))
        .routes(routes!(audit::list))
        .routes(routes!(backup::status))
        .routes(routes!(visibility::file))
        .routes(routes!(visibility::tree))
        .routes(routes!(webhooks::create, webhooks::list))
        .routes(routes!(webhooks::delete))
        .routes(routes!(webhooks::deliveries))
        .routes(routes!(readers::open_share))
}

/// The OpenAPI document and the router without state.
fn parts() -> (Router<AppState>, serde_json::Value) {
    let (space_router, _) = space_routes().split_for_parts();
    let (op_router, op_doc) = ops::routes();
    let (router, api) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health::health))
        .routes(routes!(health::healthz))
        .routes(routes!(health::readyz))
        .routes(routes!(metrics::metrics))
        .routes(routes!(readers::published_page))
        .routes(routes!(spaces::list, spaces::add))
        .routes(routes!(spaces::get, spaces::remove))
        .nest(BASE_PATH, space_routes())
        .split_for_parts();
    let mut doc = serde_json::to_value(&api).expect("the document serialises");
    op_doc.merge_into(&mut doc, BASE_PATH);
    // The spec's routes quire does not build answer their defined status; left out when
    // their route has been built since (the document lists it already).
    let unbuilt_router = unbuilt::routes(&doc, BASE_PATH);
    unbuilt::document(&mut doc, BASE_PATH);
    plain_templates(&mut doc);
    let space_router = space_router.merge(op_router).merge(unbuilt_router.clone());
    let router = router.nest(BASE_PATH, ops::routes().0.merge(unbuilt_router));
    // The same routes once more for spaces named in the URL; the document lists them once.
    (
        router.nest(&format!("{BASE_PATH}/{{space}}"), space_router),
        doc,
    )
}

/// Writes the router's catch-all segments (`/p/{*path}`) as OpenAPI path templates
/// (`/p/{path}`): OpenAPI has no wildcard syntax, and a template must name its parameters.
fn plain_templates(doc: &mut serde_json::Value) {
    let Some(paths) = doc
        .get_mut("paths")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return;
    };
    let wildcards: Vec<String> = paths.keys().filter(|p| p.contains("{*")).cloned().collect();
    for path in wildcards {
        if let Some(item) = paths.remove(&path) {
            paths.insert(path.replace("{*", "{"), item);
        }
    }
}

/// Names a space added through the API may not take: the first segments of the routes of a
/// space (`file`, `refactor`, `public` …), which `/api/quire/{space}/…` would shadow.
pub fn reserved_space_names() -> Vec<&'static str> {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| {
            let doc = openapi();
            let names: std::collections::BTreeSet<String> = doc["paths"]
                .as_object()
                .into_iter()
                .flat_map(|paths| paths.keys())
                .filter_map(|path| path.strip_prefix(BASE_PATH))
                .filter_map(|rest| rest.trim_start_matches('/').split('/').next())
                .filter(|first| !first.is_empty() && !first.starts_with('{'))
                .map(str::to_string)
                .collect();
            names.into_iter().collect()
        })
        .iter()
        .map(String::as_str)
        .collect()
}

/// The generated OpenAPI document.
pub fn openapi() -> serde_json::Value {
    parts().1
}

/// The Content-Security-Policy of HTML answers: the page's own scripts, styles and images
/// only (Swagger UI sets inline styles), audio, video and frames (a PDF in the browser's
/// viewer) from this origin or made by its scripts (`blob:`, files fetched with a key), no
/// plugins, requests to this origin only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
media-src 'self' blob:; frame-src 'self' blob:; \
base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `X-Content-Type-Options: nosniff` on every answer; on HTML answers also the
/// Content-Security-Policy, `Referrer-Policy` and `X-Frame-Options`. Public so that routers
/// merged beside this one (the web UI) answer with the same headers.
pub async fn security_headers(mut response: axum::response::Response) -> axum::response::Response {
    use axum::http::{header, HeaderValue};
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"));
    if html {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    response
}

/// A request whose `Content-Length` says its body is over [`MAX_BODY_BYTES`] is answered 413
/// before a byte of the body is read (the extractors would refuse it only once the limit's
/// worth had been received). A body sent without a length is cut at the limit by
/// [`DefaultBodyLimit`] as it arrives.
async fn refuse_declared_oversize(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(length) if length > MAX_BODY_BYTES as u64 => ApiError(quire_service::Error::new(
            quire_service::ErrorCode::TooLarge,
            format!(
                "the request body ({length} bytes) is over the limit of {MAX_BODY_BYTES} bytes"
            ),
        ))
        .into_response(),
        _ => next.run(request).await,
    }
}

/// Every route of the router as (method, route template), for tests that walk them all: the
/// documented routes (space routes also under `{space}`) and the undocumented ones (the
/// OpenAPI document and the API explorer).
pub fn route_list() -> Vec<(axum::http::Method, String)> {
    use axum::http::Method;
    let mut out = Vec::new();
    let doc = openapi();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for method in [
            Method::GET,
            Method::PUT,
            Method::POST,
            Method::DELETE,
            Method::PATCH,
            Method::HEAD,
        ] {
            if item.get(method.as_str().to_ascii_lowercase()).is_some() {
                out.push((method.clone(), path.clone()));
                if let Some(rest) = path.strip_prefix(BASE_PATH) {
                    out.push((method, format!("{BASE_PATH}/{{space}}{rest}")));
                }
            }
        }
    }
    out.push((Method::GET, "/api/openapi.json".into()));
    for route in docs::route_names() {
        out.push((Method::GET, route));
    }
    out
}

/// The whole HTTP application: every route behind the gate (rate limit, authentication,
/// scopes, audit), with CORS when origins are allowed. Panics when the audit log cannot be
/// opened; [`try_router`] answers that as an error.
pub fn router(service: Arc<Service>, settings: HttpSettings) -> Router {
    try_router(service, settings).expect("the HTTP settings can be applied")
}

/// [`router`], refusing settings it cannot apply (an audit log that cannot be opened).
pub fn try_router(service: Arc<Service>, mut settings: HttpSettings) -> Result<Router, SetupError> {
    let gate = settings.gate(service.default_space().root_dir())?;
    let http_metrics = Arc::new(metrics::HttpMetrics::new());
    // The default space's visibility comes with the settings; another space's from its own
    // root's configuration file (where `PUT /space/visibility` writes it).
    let visibilities = settings.visibilities.clone();
    for (index, space) in service.spaces().iter().enumerate() {
        let visibility = if index == 0 {
            settings.visibility
        } else {
            visibility::configured(space.root_dir())
        };
        visibilities.set(space.name(), visibility);
    }
    let (router, api) = parts();
    let api = Arc::new(api);
    let router = router
        .route(
            "/api/openapi.json",
            axum::routing::get(move || {
                let api = api.clone();
                async move { Json(api.as_ref().clone()) }
            }),
        )
        .merge(docs::routes())
        .route_layer(axum::middleware::from_fn_with_state(
            gate.clone(),
            gate::check,
        ))
        .route_layer(axum::middleware::from_fn_with_state(
            http_metrics.clone(),
            metrics::track,
        ))
        .fallback(|| async {
            ApiError(quire_service::Error::not_found(
                "no such route; see /api/openapi.json",
            ))
            .into_response()
        })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(refuse_declared_oversize))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(AppState {
            service,
            audit: gate.audit.clone(),
            metrics: http_metrics,
            visibility: visibilities,
            webhooks: settings.webhooks.clone(),
            protocols: Arc::new(settings.protocols.clone()),
            max_event_streams: settings.max_event_streams,
        });
    Ok(match settings.cors {
        Some(cors) => router.layer(cors),
        None => router,
    })
}
